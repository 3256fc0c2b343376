// Writes results/README.md's schema: one header line, then rows flushed as written.
// Never truncates: kAppend checks that an existing file has the same header, kRefuse errors
// if the file exists. Values containing commas, quotes or newlines are rejected.
#pragma once
#include <cstdio>
#include <string>
#include <utility>
#include <vector>

namespace kvb {

using CsvRow = std::vector<std::pair<std::string, std::string>>;  // (column, value)

// Schema version 1 columns, without the trailing counter pairs.
const std::vector<std::string>& csv_base_columns();
// Base columns plus c:<EVENT> and c:<EVENT>:status for each counter event.
std::vector<std::string> csv_columns(const std::vector<std::string>& counter_events);

class CsvWriter {
 public:
  enum class Mode { kAppend, kRefuse };
  // Opens `path` ("-" = stdout). Throws HarnessError naming the file and the problem.
  CsvWriter(const std::string& path, std::vector<std::string> columns, Mode mode, bool fsync_rows = false);
  ~CsvWriter();
  CsvWriter(const CsvWriter&) = delete;
  CsvWriter& operator=(const CsvWriter&) = delete;

  // Writes one row; columns not in `row` are empty; a column not in the header or a bad value
  // throws HarnessError (nothing is written for that row).
  void write(const CsvRow& row);
  const std::vector<std::string>& columns() const noexcept { return columns_; }
  int rows_written() const noexcept { return rows_; }

 private:
  std::FILE* f_ = nullptr;
  bool owns_ = false, fsync_ = false;
  std::vector<std::string> columns_;
  int rows_ = 0;
};

// Formats numbers the same way everywhere (shortest round-trip for doubles).
std::string csv_number(double v);
std::string csv_number(long long v);

}  // namespace kvb
