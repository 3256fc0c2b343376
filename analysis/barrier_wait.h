// A multi-threaded decode row's barrier_wait_pct: the share of its workers' time spent waiting
// at the per-layer barriers (harness/parallel_decode.h). A few percent is the partition's own
// imbalance (the merge and the append ride on single workers); far more means one worker ran
// slower than the rest (descheduled by the host, a slower or shared core), so the row's time is
// that worker's, not its kernel's. Informational: it changes no verdict.
#pragma once
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

// Over one machine's rows of one thread count that name a PU (barrier_slowest_pu): which PU they
// name most. One PU named by most of them points at that PU (an interrupt target, a busy sibling
// thread, a slower core); a PU that changes from row to row points at the host's scheduling.
struct BarrierPuTally {
  enum class Reading { kOnePu, kMixed, kSpread };
  int threads = 0;
  int rows = 0;                          // rows naming a PU
  double waited_min = 0, waited_max = 0;  // their barrier_wait_pct
  long long top_pu = 0;                  // the PU named by most rows (the lower number on a tie)
  int top_rows = 0;
  double top_share_min = 0, top_share_max = 0;  // its barrier_slowest_pct over those rows
  int distinct_pus = 0;
  // kOnePu: 3 or more rows and the top PU named by at least 3 in 4 of them; kSpread: by fewer
  // than half; kMixed otherwise.
  Reading reading = Reading::kSpread;
};
// One tally per thread count (ascending) with at least one row naming a PU.
std::vector<BarrierPuTally> tally_barrier_pus(const std::vector<ResultRow>& rows);

}  // namespace kvb
