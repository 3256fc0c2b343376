// The table `kvbench run` prints when it ends: one line per configuration (its median
// repetition), and under it a note for the decode rows that streamed faster than the ceiling
// they are held to, so no one quotes such a percentage without being told.
#pragma once
#include <optional>
#include <string>
#include <vector>

namespace kvb {

struct RunSummaryLine {
  std::string label;
  double gbps = 0;
  std::optional<double> pct;  // of the ceiling the row is held to
  bool held_to_read_ceiling = false;  // false: the copy ceiling (the writes)
  bool valid = false;
  // --ceiling-bracket: the row's own ceiling (GB/s), its workers' FMA burst (GFLOP/s) and the
  // barrier crossing (ns), right before and right after it.
  std::optional<double> ceiling_before, ceiling_after;
  std::optional<double> core_before, core_after;
  std::optional<double> crossing_before, crossing_after;
  std::optional<double> barrier_wait_pct;
  std::string barrier_slowest;  // ", 59% of it for PU 9"
};

// The table, its header included; `bracketed` says how the ceilings were taken (the header's
// bracket columns and the note's wording).
std::string format_run_summary(const std::vector<RunSummaryLine>& lines, bool bracketed);

}  // namespace kvb
