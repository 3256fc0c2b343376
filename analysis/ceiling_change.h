// Two runs of one configuration that ran against ceilings far apart (each row's ceiling_gbps: the
// read ceiling of its level, for copies the copy ceiling): the machine moved
// between them (another lent host, a neighbour on the memory bus), so their time ratio carries
// the machine's change as well as the code's. Each side's pct_of_ceiling (its time against the
// ceiling of its own run) is the comparison that holds the machine still. Informational: it
// changes no verdict. On the lent EMR host two reference sets of the same kernels took up to
// 1.5x each other's time, 33 of their 60 decode rows with ceilings 1.10-1.89x apart
// (results/xeon-emr-16c-kvm/session-2026-11-30e).
#pragma once
#include <optional>
#include <string>
#include <vector>

#include "analysis/result_table.h"

namespace kvb {

// Ceilings further apart than this (larger / smaller) are noted, as `kvbench report` notes a
// bracket that moved while a row ran.
inline constexpr double kCeilingMovedRatio = 1.10;

// A compared configuration's ceilings and efficiencies, base against new (medians of its rows'
// ceiling_gbps and pct_of_ceiling): "ceiling 171 -> 150 GB/s, 84% -> 78% of it" where both
// ceilings are known and further apart than kCeilingMovedRatio, else "".
std::string ceiling_change_note(std::optional<double> base_ceiling_gbps, std::optional<double> new_ceiling_gbps,
                                std::optional<double> base_pct, std::optional<double> new_pct);

// One crossing of the per-layer barrier (ceiling_barrier) is set by where the host put the
// workers' vCPUs: within one core complex, across complexes, or two on one core. Over 27 runs in
// an hour the 2-vCPU Zen 5 guest's 2-thread crossing read 93-124 ns (5 runs) or 289-356 ns (22),
// switching 9 times, and its 2-thread Qwen3-0.6B fp32 rows at 36 positions took 80-86 us in 4 of
// the 5 fast runs and 134-173 us in 21 of the 22 slow ones, its 1-thread rows 136-203 us in both
// (results/epyc-zen5-2c-kvm-508m/placement/). The EMR host, its 120 PU pairs at 252-387 ns, read
// 213-389 ns at 2 threads over 17 runs in 7 minutes, 345-508 at 4, 442-620 at 8 and 662-813 at 16
// (results/xeon-emr-16c-kvm/placement/); two of its vCPUs on one core cross in 66 ns
// (barrier-floor/). Crossings further apart than this are noted: above one placement's spread
// (1.83x), below the gap between placements (2.33x).
inline constexpr double kBarrierMovedRatio = 2.0;
// Whether two crossings are further apart than kBarrierMovedRatio (both > 0).
bool crossings_apart(double a_ns, double b_ns);

// A compared multi-threaded configuration's crossings, base against new (each side's runs'
// ceiling_barrier at its threads and pinning): "barrier crossing 316 -> 62 ns" where both are
// known and further apart than kBarrierMovedRatio, else "". The workers then ran on other
// placements, and the time ratio carries that as well as the code.
std::string barrier_change_note(std::optional<double> base_ns, std::optional<double> new_ns);

// A `--ceiling-bracket` row of 2 or more workers, its crossing right before its first and right
// after its last repetition (barrier_before_ns, barrier_after_ns): "barrier crossing moved 92 ->
// 310 ns" where both are known and further apart than kBarrierMovedRatio, else "". The host moved
// the workers' vCPUs while the row ran, so its repetitions mix two placements.
std::string barrier_moved_note(std::optional<double> before_ns, std::optional<double> after_ns);

// How a side's read ceilings were measured: since main 81a1e69 a `ceiling_read` row is the faster
// of the plain loop and the loop with the kernels' prefetch window, and carries read_window_gbps
// (kTwoLoops); since 2026-12-06e it also times the plain loop over two streams and carries
// read_two_streams_gbps (kTwoStreams, with or without the window), and since 2026-12-06g four
// streams as well, read_four_streams_gbps (kFourStreams). Older rows, and rows of runs whose
// kernels prefetch nothing before 2026-12-06e, timed the plain loop alone.
// kUnknown: no ceiling_read rows.
enum class ReadCeilingMethod { kUnknown, kPlainLoop, kTwoLoops, kTwoStreams, kFourStreams, kMixed };
ReadCeilingMethod read_ceiling_method(const std::vector<std::vector<ResultRow>>& runs);
// Where the two sides' methods differ (neither unknown): a sentence saying so, for `kvbench
// compare`: each side's ceiling rows and pct_of_ceiling then hold a differently measured ceiling
// (the Sapphire Rapids guest's DRAM ceilings read 1.011-1.037x with the window,
// results/xeon-spr-16c-kvm/read-loops/; the Zen 3 guest's one core 1.13-1.19x from two streams,
// results/epyc-zen3-2c-kvm/read-streams/). "" where they agree.
std::string read_ceiling_method_note(ReadCeilingMethod base, ReadCeilingMethod next);

}  // namespace kvb
