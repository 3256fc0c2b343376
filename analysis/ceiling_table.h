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

// Which of its loops set a machine's `ceiling_read` rows: read_plain_gbps and, beside it,
// read_window_gbps (rows written since 2026-12-06d), read_two_streams_gbps (since 2026-12-06e)
// and read_four_streams_gbps (since 2026-12-06g); such a row keeps the fastest. Older rows have
// none of them.
struct ReadLoopSplit {
  // (threads, level) in display order: by threads, then L1, L2, L3, DRAM.
  struct ThreadsThenLevel {
    bool operator()(const std::pair<int, std::string>& a, const std::pair<int, std::string>& b) const;
  };
  // One loop beside the plain one.
  struct Loop {
    int rows = 0;  // ceiling_read summaries that timed it
    // Those it set (it read more than every other loop of the row), per (threads, level): how many.
    std::map<std::pair<int, std::string>, int, ThreadsThenLevel> won;
    std::vector<double> over_plain;  // per row that timed it, in row order
  };
  int rows = 0;  // ceiling_read summaries that timed more than the plain loop
  Loop window;       // the kernels' prefetch window
  Loop two_streams;  // the plain loads over two streams
  Loop four_streams;  // and over four
};
ReadLoopSplit read_loop_split(const MachineResults& m);

}  // namespace kvb
