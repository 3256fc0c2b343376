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
  // The row only reads the cache and is held to the read ceiling, a stream of reads like it:
  // above 100% that ceiling did not bound it. Not so a write, which may pass its copy ceiling by
  // design (that ceiling reads each line for ownership before storing it; a prefill streams its
  // stores), nor a variant's copy, whose reads and writes are held to the read ceiling.
  bool streams_like_its_ceiling = false;
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
