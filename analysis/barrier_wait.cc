#include "analysis/barrier_wait.h"

#include <cmath>

namespace kvb {

std::string barrier_wait_note(const ResultRow& row) {
  const auto pct = row.num(Col::barrier_wait_pct);
  if (!pct || *pct < kBarrierWaitFlagPct) return "";
  return "workers waited " + std::to_string(std::lround(*pct)) + "% at barriers";
}

}  // namespace kvb
