// The kvbench subcommands. Each takes the arguments after its name, returns the exit status,
// and throws UsageError (exit 2) for bad input.
#pragma once
#include <string>
#include <vector>

namespace kvb {

int run_main(const std::vector<std::string>& args);
int size_main(const std::vector<std::string>& args);
int topo_main(const std::vector<std::string>& args);
int ceilings_main(const std::vector<std::string>& args);
int ab_main(const std::vector<std::string>& args);

}  // namespace kvb
