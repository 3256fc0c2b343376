// A machine's measured ceilings pivoted for reading: one row per (ceiling kind, cache level),
// one column per thread count, each cell the best median over that level's buffer sizes and the
// machine's runs (with the lowest run's best beside it). `ceiling_barrier` and
// `ceiling_barrier_end` (the crossing at a run's start and end) are times: their cells take the
// least ns per crossing, and the slowest run's beside it.
#pragma once
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "analysis/machine_results.h"

namespace kvb {

struct CeilingPivot {
  std::vector<int> threads;                                 // columns, ascending
  struct Row {
    std::string benchmark;                                  // "ceiling_read", ...
    std::string level;                                      // "L1" ... "DRAM"; "" for ceiling_fma and the crossings
    // GB/s, or GFLOP/s for ceiling_fma, or ns per crossing for ceiling_barrier; per column
    std::vector<std::optional<double>> values;
    bool lower_is_better = false;                           // the crossings
    // Shared hosts drift between runs: the worst run's best (the lowest; ceiling_barrier: the
    // slowest) and how many runs measured the cell.
    std::vector<std::optional<double>> lowest_run;
    std::vector<int> runs;
  };
  std::vector<Row> rows;  // read, write, write_nt, copy, fma, barrier, barrier_end, others; L1..DRAM
};

CeilingPivot pivot_ceilings(const MachineResults& m);

// Which of its two loops set a machine's `ceiling_read` rows (read_plain_gbps, read_window_gbps:
// rows written since 2026-12-06d time both and keep the faster; older rows have neither).
struct ReadLoopSplit {
  // (threads, level) in display order: by threads, then L1, L2, L3, DRAM.
  struct ThreadsThenLevel {
    bool operator()(const std::pair<int, std::string>& a, const std::pair<int, std::string>& b) const;
  };
  int rows = 0;  // ceiling_read summaries that timed both loops
  // Those the loop with the kernels' prefetch window won, per (threads, level): how many.
  std::map<std::pair<int, std::string>, int, ThreadsThenLevel> window_won;
  std::vector<double> window_over_plain;  // per row, in row order
};
ReadLoopSplit read_loop_split(const MachineResults& m);

}  // namespace kvb
