// A machine's measured ceilings pivoted for reading: one row per (ceiling kind, cache level),
// one column per thread count, each cell the best median over that level's buffer sizes and the
// machine's runs (with the lowest run's best beside it).
#pragma once
#include <optional>
#include <string>
#include <vector>

#include "analysis/machine_results.h"

namespace kvb {

struct CeilingPivot {
  std::vector<int> threads;                                 // columns, ascending
  struct Row {
    std::string benchmark;                                  // "ceiling_read", ...
    std::string level;                                      // "L1" ... "DRAM"; "" for ceiling_fma
    std::vector<std::optional<double>> values;              // GB/s, or GFLOP/s for ceiling_fma; per column
    // Shared hosts drift between runs: the lowest run's best and how many runs measured the cell.
    std::vector<std::optional<double>> lowest_run;
    std::vector<int> runs;
  };
  std::vector<Row> rows;                                    // read, write, write_nt, copy, fma, others; L1..DRAM
};

CeilingPivot pivot_ceilings(const MachineResults& m);

}  // namespace kvb
