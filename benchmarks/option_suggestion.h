// "Did you mean ...?" for misspelt option names: the registered name with the smallest edit
// distance.
#pragma once
#include <string>
#include <string_view>
#include <vector>

#include <boost/program_options/options_description.hpp>

namespace kvb {

// Levenshtein distance (insert, delete, substitute cost 1).
std::size_t edit_distance(std::string_view a, std::string_view b);

// The candidate closest to `unknown` (leading dashes ignored), or "" if none is within
// max(2, |unknown|/2) edits, i.e. when a suggestion would be noise.
std::string closest_name(std::string_view unknown, const std::vector<std::string>& candidates);

// Long names of every option registered in `desc`.
std::vector<std::string> option_names(const boost::program_options::options_description& desc);

}  // namespace kvb
