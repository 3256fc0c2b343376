#include "analysis/result_series.h"

#include <algorithm>
#include <map>

#include "analysis/text_table.h"

namespace kvb {

std::string series_key(const ResultRow& row) {
  std::vector<Col> cols;
  for (Col c : kConfigColumns) {
    if (c != Col::context && c != Col::ws_level) cols.push_back(c);
  }
  return row.str(Col::run_id) + "|" + join_columns(row, cols, "|");
}

std::string series_label(const ResultRow& row) {
  std::string s = row.str(Col::benchmark);
  auto add = [&](const std::string& part) {
    if (!part.empty()) s += " " + part;
  };
  add(row.str(Col::dtype));
  add(row.str(Col::layout));
  if (!row.str(Col::model).empty() && row.str(Col::model) != "custom") add(row.str(Col::model));
  if (row.str(Col::model) == "custom" || row.str(Col::model).empty()) {
    if (!row.str(Col::layers).empty()) {
      add(row.str(Col::layers) + "L/" + row.str(Col::q_heads) + "q/" + row.str(Col::kv_heads) + "kv/d" +
          row.str(Col::head_dim));
    }
  }
  if (!row.str(Col::window).empty()) add("W=" + row.str(Col::window));
  add(row.str(Col::sliding_pattern));
  if (row.num_or(Col::batch, 1) != 1) add("batch " + row.str(Col::batch));
  if (!row.str(Col::block_size).empty()) add("bs " + row.str(Col::block_size));
  add(row.str(Col::block_order));
  add(row.str(Col::seq_lens));
  if (!row.str(Col::query_tokens).empty()) add("Tq=" + row.str(Col::query_tokens));
  if (!row.str(Col::cache_state).empty() && row.str(Col::cache_state) != "warm") add(row.str(Col::cache_state));
  add(row.str(Col::threads) + "T");
  return s;
}

template <class Predicate>
std::vector<ResultSeries> machine_series(const MachineResults& m, Predicate include) {
  std::vector<ResultSeries> out;
  std::map<std::string, std::size_t> index;
  for (const ResultRow& r : m.summaries) {
    if (r.failed_validation() || !include(r)) continue;
    const std::string key = series_key(r);
    auto [it, inserted] = index.emplace(key, out.size());
    if (inserted) out.push_back({key, series_label(r), {}});
    out[it->second].rows.push_back(&r);
  }
  for (auto& s : out) {
    std::stable_sort(s.rows.begin(), s.rows.end(), [](const ResultRow* a, const ResultRow* b) {
      const double wa = a->num_or(Col::working_set_bytes, 0), wb = b->num_or(Col::working_set_bytes, 0);
      if (wa != wb) return wa < wb;
      return a->num_or(Col::context, 0) < b->num_or(Col::context, 0);
    });
  }
  return out;
}

std::vector<ResultSeries> kernel_series(const MachineResults& m) {
  return machine_series(m, [](const ResultRow& r) { return !r.is_ceiling(); });
}

std::vector<ResultSeries> ceiling_read_series(const MachineResults& m) {
  return machine_series(m, [](const ResultRow& r) { return r.str(Col::benchmark) == "ceiling_read"; });
}

std::vector<CacheLevel> cache_levels(const MachineResults& m) {
  std::vector<CacheLevel> out;
  if (m.l1d_bytes) out.push_back({"L1d", *m.l1d_bytes});
  if (m.l2_bytes) out.push_back({"L2", *m.l2_bytes});
  if (m.llc_bytes) out.push_back({"LLC", *m.llc_bytes});
  return out;
}

std::vector<SeriesKnee> series_knees(const std::vector<ResultSeries>& series,
                                     const std::vector<CacheLevel>& caches, double drop) {
  std::vector<SeriesKnee> out;
  for (const ResultSeries& s : series) {
    std::vector<SeriesPoint> points;
    for (const ResultRow* r : s.rows) {
      const auto ws = r->num(Col::working_set_bytes);
      const auto g = attained_gbps(*r);
      if (ws && g) points.push_back({*ws, *g});
    }
    for (const Knee& k : find_knees(points, drop, caches)) out.push_back({&s, k});
  }
  return out;
}

}  // namespace kvb
