#include "benchmarks/option_suggestion.h"

#include <algorithm>
#include <numeric>

namespace kvb {

std::size_t edit_distance(std::string_view a, std::string_view b) {
  std::vector<std::size_t> row(b.size() + 1);
  std::iota(row.begin(), row.end(), std::size_t{0});
  for (std::size_t i = 1; i <= a.size(); ++i) {
    std::size_t diagonal = row[0];
    row[0] = i;
    for (std::size_t j = 1; j <= b.size(); ++j) {
      const std::size_t up = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diagonal + (a[i - 1] == b[j - 1] ? 0 : 1)});
      diagonal = up;
    }
  }
  return row[b.size()];
}

std::string closest_name(std::string_view unknown, const std::vector<std::string>& candidates) {
  while (!unknown.empty() && unknown.front() == '-') unknown.remove_prefix(1);
  const std::size_t limit = std::max<std::size_t>(2, unknown.size() / 2);
  std::string best;
  std::size_t best_distance = limit + 1;
  for (const std::string& name : candidates) {
    const std::size_t d = edit_distance(unknown, name);
    if (d < best_distance) {
      best_distance = d;
      best = name;
    }
  }
  return best;
}

std::vector<std::string> option_names(const boost::program_options::options_description& desc) {
  std::vector<std::string> names;
  for (const auto& option : desc.options()) names.push_back(option->long_name());
  return names;
}

}  // namespace kvb
