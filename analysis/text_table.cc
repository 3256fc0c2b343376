#include "analysis/text_table.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace kvb {

void TextTable::add_row(std::vector<std::string> row) {
  row.resize(header_.size());
  rows_.push_back(std::move(row));
}

std::string TextTable::console() const {
  std::vector<std::size_t> width(header_.size());
  for (std::size_t c = 0; c < header_.size(); ++c) {
    width[c] = header_[c].size();
    for (const auto& r : rows_) width[c] = std::max(width[c], r[c].size());
  }
  auto line = [&](const std::vector<std::string>& r) {
    std::string s;
    for (std::size_t c = 0; c < r.size(); ++c) {
      if (c) s += "  ";
      s += r[c];
      if (c + 1 < r.size()) s.append(width[c] - r[c].size(), ' ');
    }
    return s + "\n";
  };
  std::string out = line(header_);
  std::size_t total = 0;
  for (auto w : width) total += w + 2;
  out += std::string(total > 2 ? total - 2 : 0, '-') + "\n";
  for (const auto& r : rows_) out += line(r);
  return out;
}

std::string TextTable::markdown() const {
  auto line = [](const std::vector<std::string>& r) {
    std::string s = "|";
    for (const auto& f : r) s += " " + (f.empty() ? std::string(" ") : f) + " |";
    return s + "\n";
  };
  std::string out = line(header_) + "|";
  for (std::size_t c = 0; c < header_.size(); ++c) out += "---|";
  out += "\n";
  for (const auto& r : rows_) out += line(r);
  return out;
}

std::string TextTable::csv() const {
  // RFC 4180: a field with a comma, a quote or a line break is quoted, its quotes doubled.
  auto field = [](const std::string& f) {
    if (f.find_first_of(",\"\r\n") == std::string::npos) return f;
    std::string q = "\"";
    for (const char c : f) q += c == '"' ? std::string("\"\"") : std::string(1, c);
    return q + "\"";
  };
  auto line = [&](const std::vector<std::string>& r) {
    std::string s;
    for (std::size_t c = 0; c < r.size(); ++c) s += (c ? "," : "") + field(r[c]);
    return s + "\n";
  };
  std::string out = line(header_);
  for (const auto& r : rows_) out += line(r);
  return out;
}

std::string format_number(double value, int digits) {
  if (!std::isfinite(value)) return "";
  char buf[64];
  const double magnitude = std::fabs(value);
  if (magnitude != 0 && (magnitude >= 1e7 || magnitude < 1e-3)) {
    std::snprintf(buf, sizeof buf, "%.*e", digits - 1, value);
  } else {
    // Fixed notation with `digits` significant digits but never more than needed.
    const int int_digits = magnitude >= 1 ? static_cast<int>(std::floor(std::log10(magnitude))) + 1 : 1;
    std::snprintf(buf, sizeof buf, "%.*f", std::max(0, digits - int_digits), value);
  }
  return buf;
}

std::string format_percent(double fraction, int decimals) {
  if (!std::isfinite(fraction)) return "";
  char buf[64];
  std::snprintf(buf, sizeof buf, "%+.*f%%", decimals, 100 * fraction);
  return buf;
}

std::string format_bytes(double bytes) {
  if (!std::isfinite(bytes)) return "";
  static const char* kUnits[] = {"B", "KiB", "MiB", "GiB", "TiB"};
  int unit = 0;
  while (std::fabs(bytes) >= 1024 && unit < 4) {
    bytes /= 1024;
    ++unit;
  }
  char buf[64];
  if (bytes == std::floor(bytes)) {
    std::snprintf(buf, sizeof buf, "%.0f %s", bytes, kUnits[unit]);
  } else {
    std::snprintf(buf, sizeof buf, "%.3g %s", bytes, kUnits[unit]);
  }
  return buf;
}

}  // namespace kvb
