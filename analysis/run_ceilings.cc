#include "analysis/run_ceilings.h"

#include <algorithm>
#include <cmath>
#include <tuple>

#include "analysis/statistics.h"

namespace kvb {
namespace {

std::string group(const ResultRow& row) {
  return row.str(Col::run_id) + "|" + row.str(Col::threads) + "|" + row.str(Col::pin);
}

std::string key(const std::string& ceiling, const ResultRow& row, const std::string& level) {
  return ceiling + "|" + group(row) + "|" + level;
}

}  // namespace

RunCeilings::RunCeilings(const MachineResults& m) {
  std::map<std::string, std::vector<double>> bursts;  // run_id|threads|pin -> every burst's GFLOP/s
  for (const ResultRow& r : m.summaries) {
    if (r.is_fma_ceiling()) {
      if (const auto f = r.num(Col::gflops); f && *f > 0) bursts[group(r)].push_back(*f);
    } else if (const auto before = r.num(Col::core_before_gflops), after = r.num(Col::core_after_gflops);
               before && after && *before > 0 && *after > 0) {
      std::vector<double>& seen = bursts[group(r)];
      seen.insert(seen.end(), {*before, *after});
    }
    if (!r.is_ceiling()) continue;
    const std::string& benchmark = r.str(Col::benchmark);
    const CeilingEnds of_group{r.str(Col::run_id), r.str(Col::pin), static_cast<int>(r.num_or(Col::threads, 0)), 0,
                               0};
    if (r.is_fma_ceiling()) {
      if (const auto f = r.num(Col::gflops); f && *f > 0) {
        auto [it, inserted] = (benchmark == "ceiling_fma_end" ? fma_end_ : fma_start_).emplace(group(r), *f);
        if (!inserted) it->second = std::max(it->second, *f);
        groups_.emplace(group(r), of_group);
      }
      continue;
    }
    if (const bool end = benchmark == "ceiling_barrier_end"; end || benchmark == "ceiling_barrier") {
      if (const auto ns = r.num(Col::ns_per_step); ns && *ns > 0) {
        auto [it, inserted] = (end ? barrier_end_ : barrier_).emplace(group(r), *ns);
        if (!inserted) it->second = std::min(it->second, *ns);
        groups_.emplace(group(r), of_group);
      }
      continue;
    }
    const auto g = attained_gbps(r);
    if (!g || !(*g > 0)) continue;
    auto [it, inserted] = best_.emplace(key(benchmark, r, r.str(Col::ws_level)), *g);
    if (!inserted) it->second = std::max(it->second, *g);
  }
  for (auto& [g, values] : bursts) usual_fma_.emplace(g, *median(std::move(values)));
}

std::optional<double> RunCeilings::gbps(const std::string& ceiling, const ResultRow& row,
                                        const std::string& level) const {
  const auto it = best_.find(key(ceiling, row, level));
  if (it == best_.end()) return std::nullopt;
  return it->second;
}

std::optional<double> RunCeilings::read_gbps(const ResultRow& row, const std::string& level) const {
  if (row.str(Col::ws_level) == level) {
    if (const auto own = row.num(Col::ceiling_gbps); own && *own > 0) return own;
  }
  return gbps("ceiling_read", row, level);
}

std::optional<double> RunCeilings::copy_gbps(const ResultRow& row, const std::string& level) const {
  if (row.str(Col::ws_level) == level && ceiling_drift(row)) {
    if (const auto own = row.num(Col::ceiling_gbps); own && *own > 0) return own;
  }
  return gbps("ceiling_copy", row, level);
}

std::optional<double> RunCeilings::fma_gflops(const ResultRow& row) const {
  std::optional<double> best;
  for (const auto* ends : {&fma_start_, &fma_end_}) {
    if (const auto it = ends->find(group(row)); it != ends->end()) best = std::max(best.value_or(0.0), it->second);
  }
  return best;
}

std::optional<double> RunCeilings::barrier_ns(const ResultRow& row) const {
  const auto it = barrier_.find(group(row));
  if (it == barrier_.end()) return std::nullopt;
  return it->second;
}

std::optional<double> RunCeilings::barrier_end_ns(const ResultRow& row) const {
  const auto it = barrier_end_.find(group(row));
  if (it == barrier_end_.end()) return std::nullopt;
  return it->second;
}

std::vector<RunCeilings::CeilingEnds> RunCeilings::both_ends(const std::map<std::string, double>& start,
                                                              const std::map<std::string, double>& end) const {
  std::vector<CeilingEnds> out;
  for (const auto& [key, start_value] : start) {
    const auto e = end.find(key);
    if (e == end.end()) continue;
    CeilingEnds c = groups_.at(key);
    c.start = start_value;
    c.end = e->second;
    out.push_back(std::move(c));
  }
  // The keys are text ("16" before "2"): runs in run_id order, each by thread count.
  std::sort(out.begin(), out.end(), [](const CeilingEnds& a, const CeilingEnds& b) {
    return std::tie(a.run_id, a.threads, a.pin) < std::tie(b.run_id, b.threads, b.pin);
  });
  return out;
}

std::vector<RunCeilings::CeilingEnds> RunCeilings::crossing_ends() const { return both_ends(barrier_, barrier_end_); }

std::vector<RunCeilings::CeilingEnds> RunCeilings::fma_ends() const { return both_ends(fma_start_, fma_end_); }

std::optional<double> RunCeilings::usual_fma_gflops(const ResultRow& row) const {
  const auto it = usual_fma_.find(group(row));
  if (it == usual_fma_.end()) return std::nullopt;
  return it->second;
}

namespace {

std::optional<double> slower_core_end(const ResultRow& row) {
  const auto before = row.num(Col::core_before_gflops), after = row.num(Col::core_after_gflops);
  if (!before || !after || !(*before > 0) || !(*after > 0)) return std::nullopt;
  return std::min(*before, *after);
}

}  // namespace

std::optional<double> RunCeilings::core_fraction(const ResultRow& row) const {
  const auto slower = slower_core_end(row);
  if (!slower) return std::nullopt;
  // A row bracketed in a file without its run's other rows still has its own two bursts.
  return *slower / usual_fma_gflops(row).value_or(*slower);
}

std::optional<double> RunCeilings::core_fraction_of_ceiling(const ResultRow& row) const {
  const auto slower = slower_core_end(row);
  if (!slower) return std::nullopt;
  const double fastest = std::max({*row.num(Col::core_before_gflops), *row.num(Col::core_after_gflops),
                                   fma_gflops(row).value_or(0.0)});
  return *slower / fastest;
}

std::string RunCeilings::core_slowed_note(const ResultRow& row) const {
  std::string note;
  if (const auto fraction = core_fraction(row); fraction && *fraction < 1 - kCeilingDriftFlag) {
    note = "core at " + std::to_string(std::lround(100 * *fraction)) + "% of its run's usual FMA rate";
  } else if (const auto of_ceiling = core_fraction_of_ceiling(row); of_ceiling && *of_ceiling < 1 - kCoreStateFlag) {
    note = "core at " + std::to_string(std::lround(100 * *of_ceiling)) + "% of its FMA ceiling";
  }
  // The burst's GFLOP/s is its last worker's: where every burst of the run had one worker slowed
  // (the EMR host at 16 threads), the ceiling shares that state and only the workers' own rates
  // show it.
  if (const auto slowest = row.num(Col::core_slowest_pct);
      slowest && *slowest > 0 && *slowest < 100 * (1 - kCeilingDriftFlag)) {
    const auto pu = row.num(Col::core_slowest_pu);
    note += (note.empty() ? "" : "; ") + std::string("a worker at ") + std::to_string(std::lround(*slowest)) +
            "% of the fastest's FMA rate" + (pu ? " (PU " + std::to_string(std::lround(*pu)) + ")" : "");
  }
  return note;
}

std::optional<double> ceiling_drift(const ResultRow& row) {
  const auto before = row.num(Col::ceiling_before_gbps), after = row.num(Col::ceiling_after_gbps);
  if (!before || !after || !(*before > 0) || !(*after > 0)) return std::nullopt;
  return *after / *before - 1;
}

std::string ceiling_moved_note(const ResultRow& row) {
  const auto before = row.num(Col::ceiling_before_gbps), after = row.num(Col::ceiling_after_gbps);
  const auto drift = ceiling_drift(row);
  if (!drift || std::max(*before, *after) / std::min(*before, *after) - 1 <= kCeilingDriftFlag) return "";
  const long pct = std::lround(100 * *drift);
  return "ceiling moved " + std::string(pct > 0 ? "+" : "") + std::to_string(pct) + "%";
}

std::string pair_ceilings_note(const ResultRow& row, const ResultRow& partner) {
  if (!ceiling_drift(row) || !ceiling_drift(partner)) return "";  // not both bracketed
  const auto a = row.num(Col::ceiling_gbps), b = partner.num(Col::ceiling_gbps);
  if (!a || !b || !(*a > 0) || !(*b > 0)) return "";
  if (std::max(*a, *b) / std::min(*a, *b) - 1 <= kCeilingDriftFlag) return "";
  return "ceiling " + std::to_string(std::lround(*a)) + " GB/s, its partner's " + std::to_string(std::lround(*b));
}

}  // namespace kvb
