// A table of strings rendered for the console (aligned columns), Markdown or CSV.
#pragma once
#include <string>
#include <vector>

namespace kvb {

class TextTable {
 public:
  explicit TextTable(std::vector<std::string> header) : header_(std::move(header)) {}
  void add_row(std::vector<std::string> row);  // padded/truncated to the header's width
  bool empty() const { return rows_.empty(); }
  std::size_t size() const { return rows_.size(); }

  std::string console() const;
  std::string markdown() const;
  std::string csv() const;  // RFC 4180: fields with commas, quotes or line breaks are quoted

 private:
  std::vector<std::string> header_;
  std::vector<std::vector<std::string>> rows_;
};

// Number formatting shared by report and compare: `digits` significant digits, "" for nullopt-like NaN.
std::string format_number(double value, int digits = 4);
std::string format_percent(double fraction, int decimals = 1);  // 0.123 -> "+12.3%"
std::string format_bytes(double bytes);                         // 1048576 -> "1 MiB"

}  // namespace kvb
