// A multi-threaded decode row's barrier_wait_pct: the share of its workers' time spent waiting
// at the per-layer barriers (harness/parallel_decode.h). A few percent is the partition's own
// imbalance (the merge and the append ride on single workers); far more means one worker ran
// slower than the rest (descheduled by the host, a slower or shared core), so the row's time is
// that worker's, not its kernel's. Informational: it changes no verdict.
#pragma once
#include <string>

#include "analysis/result_table.h"

namespace kvb {

// Rows whose workers waited at least this share of their time are noted in the report (a 2-vCPU
// Zen 4 guest with nothing else running read 4-18% at 2 threads).
inline constexpr double kBarrierWaitFlagPct = 25.0;

// "workers waited 41% at barriers" for a flagged row, else "". Rows that name the worker the
// others waited for most add ", 59% of it for PU 9".
std::string barrier_wait_note(const ResultRow& row);

}  // namespace kvb
