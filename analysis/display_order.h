// Fixed display orders for report tables (dtypes, ceiling kinds, cache levels).
#pragma once
#include <initializer_list>
#include <string>

namespace kvb {

// Position of `value` in `order`; values not listed rank after all listed ones.
inline int rank_in(const std::string& value, std::initializer_list<const char*> order) {
  int i = 0;
  for (const char* name : order) {
    if (value == name) return i;
    ++i;
  }
  return i;
}

}  // namespace kvb
