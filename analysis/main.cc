// kvbench-analysis: stand-alone front end for `report` and `compare` until the `kvbench`
// command line dispatches to them itself.
#include <cstring>
#include <iostream>

#include "analysis/compare_command.h"
#include "analysis/input_error.h"
#include "analysis/report_command.h"

int main(int argc, char** argv) {
  if (argc >= 2 && std::strcmp(argv[1], "report") == 0) return kvb::report_main(argc - 1, argv + 1);
  if (argc >= 2 && std::strcmp(argv[1], "compare") == 0) return kvb::compare_main(argc - 1, argv + 1);
  std::cerr << "usage: kvbench-analysis report <csv>... --out DIR | compare <base.csv> <new.csv>\n";
  return kvb::kExitBadInput;
}
