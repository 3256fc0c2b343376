// Comma-separated option values ("1024,4096,16384") as used by sweep options.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

namespace kvb {

// Splits on commas, trims blanks, drops nothing: an empty item is an error. `option` names the
// option in the UsageError thrown for bad input.
std::vector<std::string> split_list(const std::string& text, const std::string& option);

// Each item a positive integer (k/K, m/M suffixes for 1024 multiples are accepted).
std::vector<std::int64_t> parse_positive_list(const std::string& text, const std::string& option);
std::int64_t parse_positive(const std::string& item, const std::string& option);

}  // namespace kvb
