#include "analysis/ceiling_table.h"

#include <algorithm>
#include <map>
#include <set>
#include <tuple>

#include "analysis/display_order.h"

namespace kvb {
namespace {

int kind_rank(const std::string& benchmark) {
  return rank_in(benchmark,
                 {"ceiling_read", "ceiling_write", "ceiling_write_nt", "ceiling_copy", "ceiling_fma", "ceiling_barrier",
                  "ceiling_barrier_end"});
}

// The per-layer barrier's crossing, at a run's start or its end: a time.
bool is_crossing(const std::string& benchmark) {
  return benchmark == "ceiling_barrier" || benchmark == "ceiling_barrier_end";
}

int level_rank(const std::string& level) { return rank_in(level, {"L1", "L2", "L3", "DRAM"}); }

}  // namespace

CeilingPivot pivot_ceilings(const MachineResults& m) {
  using Key = std::tuple<int, std::string, int, std::string>;  // ranks keep the display order
  std::map<Key, std::map<int, std::map<std::string, double>>> best;  // cell -> threads -> run -> best
  std::set<int> threads;
  for (const ResultRow& r : m.summaries) {
    if (!r.is_ceiling() || !r.num(Col::threads)) continue;
    const int t = static_cast<int>(*r.num(Col::threads));
    // A run's FMA ceiling at its end joins its start's: the cell is the machine's best (fma_peak).
    const std::string bench = r.is_fma_ceiling() ? "ceiling_fma" : r.str(Col::benchmark);
    const bool time = is_crossing(bench);
    const std::string level = bench == "ceiling_fma" || time ? "" : r.str(Col::ws_level);
    const auto v = bench == "ceiling_fma" ? m.fma_peak(t) : time ? r.num(Col::ns_per_step) : attained_gbps(r);
    if (!v) continue;
    threads.insert(t);
    auto& runs = best[{kind_rank(bench), bench, level_rank(level), level}][t];
    const std::string run = bench == "ceiling_fma" ? "" : r.str(Col::run_id);  // fma_peak is per machine
    if (!runs.count(run) || (time ? *v < runs[run] : *v > runs[run])) runs[run] = *v;
  }
  CeilingPivot p;
  p.threads.assign(threads.begin(), threads.end());
  for (const auto& [key, by_threads] : best) {
    CeilingPivot::Row row{std::get<1>(key), std::get<3>(key), {}, is_crossing(std::get<1>(key)), {}, {}};
    for (int t : p.threads) {
      auto it = by_threads.find(t);
      if (it == by_threads.end()) {
        row.values.push_back(std::nullopt);
        row.lowest_run.push_back(std::nullopt);
        row.runs.push_back(0);
        continue;
      }
      double hi = 0, lo = 0;
      bool first = true;
      for (const auto& [run, v] : it->second) {
        hi = first ? v : std::max(hi, v);
        lo = first ? v : std::min(lo, v);
        first = false;
      }
      row.values.push_back(row.lower_is_better ? lo : hi);
      row.lowest_run.push_back(row.lower_is_better ? hi : lo);
      row.runs.push_back(static_cast<int>(it->second.size()));
    }
    p.rows.push_back(std::move(row));
  }
  return p;
}

bool ReadLoopSplit::ThreadsThenLevel::operator()(const std::pair<int, std::string>& a,
                                                 const std::pair<int, std::string>& b) const {
  return std::tuple(a.first, level_rank(a.second), a.second) < std::tuple(b.first, level_rank(b.second), b.second);
}

ReadLoopSplit read_loop_split(const MachineResults& m) {
  ReadLoopSplit split;
  for (const ResultRow& r : m.summaries) {
    const auto plain = r.num(Col::read_plain_gbps);
    const auto window = r.num(Col::read_window_gbps);
    const auto two_streams = r.num(Col::read_two_streams_gbps);
    const auto four_streams = r.num(Col::read_four_streams_gbps);
    if (r.str(Col::benchmark) != "ceiling_read" || !plain || *plain <= 0 || (!window && !two_streams && !four_streams))
      continue;
    ++split.rows;
    const double best =
        std::max({*plain, window.value_or(0.0), two_streams.value_or(0.0), four_streams.value_or(0.0)});
    const std::pair<int, std::string> at{static_cast<int>(r.num_or(Col::threads, 0)), r.str(Col::ws_level)};
    for (auto [gbps, loop] : {std::pair{window, &split.window}, std::pair{two_streams, &split.two_streams},
                              std::pair{four_streams, &split.four_streams}}) {
      if (!gbps) continue;
      ++loop->rows;
      loop->over_plain.push_back(*gbps / *plain);
      if (*gbps > *plain && *gbps == best) ++loop->won[at];
    }
  }
  return split;
}

}  // namespace kvb
