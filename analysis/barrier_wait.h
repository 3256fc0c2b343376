// A multi-threaded decode row's barrier_wait_pct: the share of its workers' time spent waiting
// at the per-layer barriers (harness/parallel_decode.h). A few percent is the partition's own
// imbalance (the merge and the append ride on single workers); far more means one worker ran
// slower than the rest (descheduled by the host, a slower or shared core), so the row's time is
// that worker's, not its kernel's. Informational: it changes no verdict.
#pragma once
#include <optional>
#include <string>
#include <vector>

#include "analysis/result_table.h"

namespace kvb {

// Rows whose workers waited at least this share of their time are noted in the report (a 2-vCPU
// Zen 4 guest with nothing else running read 4-18% at 2 threads).
inline constexpr double kBarrierWaitFlagPct = 25.0;

// "workers waited 41% at barriers" for a flagged row, else "". Rows that name the worker the
// others waited for most add ", 59% of it for PU 9".
std::string barrier_wait_note(const ResultRow& row);

// A compared configuration's waits, base against new (medians of its rows' barrier_wait_pct):
// "workers waited 4% -> 38% at barriers" where either side reaches kBarrierWaitFlagPct, else "".
// A slowdown that comes with it is one worker's (the host's scheduling), not the code's.
std::string barrier_wait_change_note(std::optional<double> base_pct, std::optional<double> new_pct);

// Two runs of one configuration whose workers worked shares of the step (100% minus
// barrier_wait_pct) more than this far apart: one had a slow worker the other had not, and with
// the same work per worker the waiting alone moves their time by that factor. On the EMR host, 22
// back-to-back runs of one build at 8 threads read 235-290 us with workers waiting 11-17% and
// 362-415 us waiting 30-33% (most for PU 6 or 7 in 7 of those 9 runs); its three rounds of extreme
// ratio (0.73, 0.75, 1.48) were the three that paired the two states
// (results/xeon-emr-16c-kvm/placement-ends/).
inline constexpr double kWaitsApartRatio = 1.10;
// Whether two rows' barrier_wait_pct lie that far apart (both in [0, 100)).
bool waits_apart(double a_pct, double b_pct);

// Over one machine's rows of one thread count that name a PU (barrier_slowest_pu): which PU they
// name most, and whether it held most of the waiting. Rows whose workers waited less than
// kBarrierPuMinWaitPct are counted but name no one (a small wait's split is noise). A row points
// at its PU where that PU's share is more than halfway from an even split (100 / threads) to
// all of the waiting: 75% at 2 threads, 53% at 16. One PU that most rows point at is an
// interrupt target, a busy sibling thread or a slower core; PUs that change from row to row, or
// shares near an even split, point at the host's scheduling.
inline constexpr double kBarrierPuMinWaitPct = 5.0;
struct BarrierPuTally {
  int threads = 0;
  int rows = 0;          // rows naming a PU
  int waiting_rows = 0;  // of them, rows whose workers waited kBarrierPuMinWaitPct or more
  double waited_min = 0, waited_max = 0;  // barrier_wait_pct over the waiting rows
  long long top_pu = 0;  // the PU the waiting rows name most (the lower number on a tie)
  int top_rows = 0;
  int top_held_rows = 0;  // of them, rows where it held more than halfway to all of the waiting
  double top_share_min = 0, top_share_max = 0;  // its barrier_slowest_pct over its rows
  int distinct_pus = 0;  // PUs the waiting rows name
  // At least 3 waiting rows, and the top PU holds the waiting in 3 of every 4 of them.
  bool one_pu() const noexcept { return waiting_rows >= 3 && 4 * top_held_rows >= 3 * waiting_rows; }
};
// One tally per thread count (ascending) with at least one row naming a PU.
std::vector<BarrierPuTally> tally_barrier_pus(const std::vector<ResultRow>& rows);

}  // namespace kvb
