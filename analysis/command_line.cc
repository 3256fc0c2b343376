#include "analysis/command_line.h"

#include <boost/program_options/errors.hpp>
#include <boost/program_options/parsers.hpp>
#include <exception>
#include <iostream>
#include <string>

#include "analysis/input_error.h"

namespace kvb {
namespace po = boost::program_options;

std::optional<po::variables_map> parse_command_line(int argc, char** argv, const po::options_description& visible,
                                                    const po::options_description& all,
                                                    const po::positional_options_description& positional,
                                                    const char* usage) {
  try {
    po::variables_map vm;
    po::store(po::command_line_parser(argc, argv).options(all).positional(positional).run(), vm);
    if (vm.count("help")) {
      std::cout << usage << "\n" << visible;
      return std::nullopt;
    }
    po::notify(vm);
    return vm;
  } catch (const po::error& e) {
    throw InputError(std::string(e.what()) + "\n" + usage);
  }
}

int report_current_exception(const char* command, int failure_status) {
  try {
    throw;
  } catch (const InputError& e) {
    std::cerr << "kvbench " << command << ": error: " << e.what() << "\n";
    return kExitBadInput;
  } catch (const std::exception& e) {
    std::cerr << "kvbench " << command << ": failed: " << e.what() << "\n";
    return failure_status;
  }
}

}  // namespace kvb
