// Command-line plumbing shared by `kvbench report` and `kvbench compare`: option parsing with
// the usage text on error, and turning an escaped exception into a message and an exit status.
#pragma once
#include <optional>

#include <boost/program_options/options_description.hpp>
#include <boost/program_options/positional_options.hpp>
#include <boost/program_options/variables_map.hpp>

namespace kvb {

// Parses argv against `all` (the `visible` options plus hidden positional ones). Returns nullopt
// after printing `usage` and `visible` to stdout when --help is given; a parse error becomes an
// InputError carrying `usage`.
std::optional<boost::program_options::variables_map> parse_command_line(
    int argc, char** argv, const boost::program_options::options_description& visible,
    const boost::program_options::options_description& all,
    const boost::program_options::positional_options_description& positional, const char* usage);

// Call only inside a catch handler. Writes "kvbench <command>: error: ..." for an InputError
// (returns kExitBadInput) or "kvbench <command>: failed: ..." for another std::exception
// (returns `failure_status`) to stderr; any other exception propagates.
int report_current_exception(const char* command, int failure_status);

}  // namespace kvb
