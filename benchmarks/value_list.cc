#include "benchmarks/value_list.h"

#include <cctype>
#include <charconv>
#include <limits>

#include "benchmarks/usage_error.h"

namespace kvb {

std::vector<std::string> split_list(const std::string& text, const std::string& option) {
  std::vector<std::string> items;
  std::size_t start = 0;
  while (true) {
    const std::size_t comma = text.find(',', start);
    std::string item = text.substr(start, comma == std::string::npos ? std::string::npos
                                                                     : comma - start);
    const auto first = item.find_first_not_of(" \t");
    const auto last = item.find_last_not_of(" \t");
    item = first == std::string::npos ? "" : item.substr(first, last - first + 1);
    if (item.empty()) {
      throw UsageError("bad value '" + text + "' for --" + option + ": empty list item");
    }
    items.push_back(item);
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  return items;
}

std::int64_t parse_positive(const std::string& item, const std::string& option) {
  std::int64_t multiplier = 1;
  std::string digits = item;
  if (!digits.empty()) {
    const char suffix = static_cast<char>(std::tolower(static_cast<unsigned char>(digits.back())));
    if (suffix == 'k') multiplier = 1024;
    if (suffix == 'm') multiplier = 1024 * 1024;
    if (multiplier != 1) digits.pop_back();
  }
  std::int64_t value = 0;
  const char* end = digits.data() + digits.size();
  const auto [ptr, ec] = std::from_chars(digits.data(), end, value);
  if (digits.empty() || ec != std::errc() || ptr != end || value <= 0 ||
      value > std::numeric_limits<std::int64_t>::max() / multiplier) {
    throw UsageError("bad value '" + item + "' for --" + option + ": expected a positive integer");
  }
  return value * multiplier;
}

std::vector<std::int64_t> parse_positive_list(const std::string& text, const std::string& option) {
  std::vector<std::int64_t> values;
  for (const std::string& item : split_list(text, option)) {
    values.push_back(parse_positive(item, option));
  }
  return values;
}

}  // namespace kvb
