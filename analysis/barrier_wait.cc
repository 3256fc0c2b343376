#include "analysis/barrier_wait.h"

#include <algorithm>
#include <cmath>
#include <map>

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

std::string barrier_wait_change_note(std::optional<double> base_pct, std::optional<double> new_pct) {
  if (!base_pct && !new_pct) return "";
  if (std::max(base_pct.value_or(0), new_pct.value_or(0)) < kBarrierWaitFlagPct) return "";
  const auto pct = [](std::optional<double> x) { return x ? std::to_string(std::lround(*x)) + "%" : std::string("-"); };
  return "workers waited " + pct(base_pct) + " -> " + pct(new_pct) + " at barriers";
}

bool waits_apart(double a_pct, double b_pct) {
  const double a_work = 100 - a_pct, b_work = 100 - b_pct;
  if (!(a_work > 0) || !(b_work > 0)) return false;
  return std::max(a_work, b_work) > kWaitsApartRatio * std::min(a_work, b_work);
}

std::vector<BarrierPuTally> tally_barrier_pus(const std::vector<ResultRow>& rows) {
  struct Named {
    int rows = 0, held = 0;
    double share_min = 0, share_max = 0;
  };
  std::map<int, BarrierPuTally> by_threads;
  std::map<int, std::map<long long, Named>> named;  // threads -> PU -> the waiting rows naming it
  for (const ResultRow& r : rows) {
    const auto pu = r.num(Col::barrier_slowest_pu);
    const auto share = r.num(Col::barrier_slowest_pct);
    const auto waited = r.num(Col::barrier_wait_pct);
    const auto threads = r.num(Col::threads);
    if (!pu || !share || !waited || !threads || *threads < 2 || r.is_ceiling()) continue;
    const int t = static_cast<int>(std::lround(*threads));
    BarrierPuTally& tally = by_threads[t];
    tally.threads = t;
    ++tally.rows;
    if (*waited < kBarrierPuMinWaitPct) continue;
    tally.waited_min = tally.waiting_rows == 0 ? *waited : std::min(tally.waited_min, *waited);
    tally.waited_max = tally.waiting_rows == 0 ? *waited : std::max(tally.waited_max, *waited);
    ++tally.waiting_rows;
    Named& n = named[t][std::llround(*pu)];
    n.share_min = n.rows == 0 ? *share : std::min(n.share_min, *share);
    n.share_max = n.rows == 0 ? *share : std::max(n.share_max, *share);
    ++n.rows;
    if (*share > 50.0 + 50.0 / t) ++n.held;  // halfway from an even split to all of it
  }
  std::vector<BarrierPuTally> out;
  for (auto& [t, tally] : by_threads) {
    tally.distinct_pus = static_cast<int>(named[t].size());
    for (const auto& [pu, n] : named[t]) {  // ascending PU: the lower number wins a tie
      if (n.rows > tally.top_rows) {
        tally.top_pu = pu;
        tally.top_rows = n.rows;
        tally.top_held_rows = n.held;
        tally.top_share_min = n.share_min;
        tally.top_share_max = n.share_max;
      }
    }
    out.push_back(tally);
  }
  return out;
}

}  // namespace kvb
