// Layered option parsing: command line over --config file over --model preset. Unknown or
// misspelt options (on the line or in a file) become a UsageError naming the closest valid
// option.
#pragma once
#include <string>
#include <vector>

#include <boost/program_options/options_description.hpp>
#include <boost/program_options/variables_map.hpp>

namespace kvb {

// Stores `args` (without program and subcommand names), then the file named by --config (if
// `desc` has it and it was given), then the preset named by `model` (or by --model when `model`
// is empty; "custom" means none) into *vm, earlier sources winning, and calls notify().
void parse_layered(const std::vector<std::string>& args,
                   const boost::program_options::options_description& desc,
                   boost::program_options::variables_map* vm, const std::string& model = "");

// parse_layered, then --help: prints `desc` to stdout and returns true when --help was given
// (the command then exits 0 without doing its work).
bool parse_layered_or_help(const std::vector<std::string>& args,
                           const boost::program_options::options_description& desc,
                           boost::program_options::variables_map* vm, const std::string& model = "");

// Parses one config file into *vm (values already stored win).
void store_config_file(const std::string& path,
                       const boost::program_options::options_description& desc,
                       boost::program_options::variables_map* vm);

}  // namespace kvb
