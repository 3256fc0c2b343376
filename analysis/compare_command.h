// `kvbench compare <base.csv> <new.csv>`: per-configuration medians, ratio, Mann-Whitney U test
// and a faster/slower/same verdict. Exit 1 if any configuration is significantly slower beyond
// the threshold (CI gates on it), 0 otherwise, 2 on bad input.
#pragma once

namespace kvb {

int compare_main(int argc, char** argv);  // argv[0] is the subcommand name

}  // namespace kvb
