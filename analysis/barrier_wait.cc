#include "analysis/barrier_wait.h"

#include <cmath>

namespace kvb {

std::string barrier_wait_note(const ResultRow& row) {
  const auto pct = row.num(Col::barrier_wait_pct);
  if (!pct || *pct < kBarrierWaitFlagPct) return "";
  std::string note = "workers waited " + std::to_string(std::lround(*pct)) + "% at barriers";
  // The worker they waited for most (rows before 2026-11-30 lack the columns).
  const auto pu = row.num(Col::barrier_slowest_pu);
  const auto share = row.num(Col::barrier_slowest_pct);
  if (pu && share) {
    note += ", " + std::to_string(std::lround(*share)) + "% of it for PU " + std::to_string(std::llround(*pu));
  }
  return note;
}

}  // namespace kvb
