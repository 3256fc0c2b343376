#include "analysis/series_selection.h"

#include <algorithm>
#include <functional>
#include <map>
#include <tuple>

namespace kvb {
namespace {

const char* kDTypeOrder[] = {"fp32", "fp16", "bf16", "int8", "int4"};

int dtype_rank(const std::string& dtype) {
  for (std::size_t i = 0; i < std::size(kDTypeOrder); ++i) {
    if (dtype == kDTypeOrder[i]) return static_cast<int>(i);
  }
  return static_cast<int>(std::size(kDTypeOrder));
}

int cache_state_rank(const std::string& state) {
  if (state == "warm") return 0;
  if (state == "cold") return 1;
  return 2;
}

// Rows grouped by `key`, each group ordered by `x` with one row per x value (the median GB/s).
struct Grouping {
  std::function<bool(const ResultRow&)> include;
  std::function<std::string(const ResultRow&)> key;
  std::function<std::string(const ResultRow&)> label;
  Col x;
};

std::vector<ResultSeries> group_rows(const MachineResults& m, const Grouping& g) {
  std::vector<ResultSeries> out;
  std::map<std::string, std::size_t> index;
  for (const ResultRow& r : m.summaries) {
    if (!g.include(r) || !attained_gbps(r) || !r.num(g.x)) continue;
    const std::string key = g.key(r);
    auto [it, inserted] = index.emplace(key, out.size());
    if (inserted) out.push_back({key, g.label(r), {}});
    out[it->second].rows.push_back(&r);
  }
  for (ResultSeries& s : out) {
    std::map<double, std::vector<const ResultRow*>> by_x;
    for (const ResultRow* r : s.rows) by_x[*r->num(g.x)].push_back(r);
    s.rows.clear();
    for (auto& [x, rows] : by_x) {
      std::stable_sort(rows.begin(), rows.end(), [](const ResultRow* a, const ResultRow* b) {
        return *attained_gbps(*a) < *attained_gbps(*b);
      });
      s.rows.push_back(rows[(rows.size() - 1) / 2]);  // lower median: a measured row, never an average
    }
  }
  return out;
}

}  // namespace

bool is_decode_kernel(const ResultRow& r) {
  const std::string& b = r.str(Col::benchmark);
  return (b == "decode_step" || b == "attention") && !r.failed_validation() && r.str(Col::window).empty() &&
         r.num_or(Col::batch, 1) == 1;
}

int max_decode_threads(const MachineResults& m) {
  int best = 0;
  for (const ResultRow& r : m.summaries) {
    if (is_decode_kernel(r)) best = std::max(best, static_cast<int>(r.num_or(Col::threads, 0)));
  }
  return best;
}

std::vector<SeriesPanel> split_panels(std::vector<SeriesPanel> panels, std::size_t max_series) {
  std::vector<SeriesPanel> out;
  max_series = std::max<std::size_t>(max_series, 1);
  for (SeriesPanel& p : panels) {
    if (p.series.size() <= max_series) {
      out.push_back(std::move(p));
      continue;
    }
    const std::size_t parts = (p.series.size() + max_series - 1) / max_series;
    for (std::size_t i = 0; i < parts; ++i) {
      SeriesPanel part{p.title + " (" + std::to_string(i + 1) + "/" + std::to_string(parts) + ")", {}, {}};
      const std::size_t begin = i * max_series, end = std::min(p.series.size(), begin + max_series);
      part.series.assign(p.series.begin() + begin, p.series.begin() + end);
      if (!p.other_shapes.empty()) {
        part.other_shapes.assign(p.other_shapes.begin() + begin, p.other_shapes.begin() + end);
      }
      out.push_back(std::move(part));
    }
  }
  return out;
}

std::vector<SeriesPanel> llc_fit_panels(const MachineResults& m, int threads, std::size_t max_series) {
  auto family = [](const ResultRow& r) {
    return r.str(Col::benchmark) + "|" + r.str(Col::dtype) + "|" + r.str(Col::cache_state) + "|" + r.str(Col::layout);
  };
  Grouping g;
  g.include = [threads](const ResultRow& r) {
    return is_decode_kernel(r) && r.num_or(Col::threads, 0) == threads && r.num(Col::working_set_bytes);
  };
  g.key = [&](const ResultRow& r) { return family(r) + "|" + shape_label(r); };
  g.label = [](const ResultRow& r) {
    std::string s = r.str(Col::dtype) + " " + r.str(Col::cache_state);
    if (!r.str(Col::layout).empty() && r.str(Col::layout) != "head_major") s += " " + r.str(Col::layout);
    return s + " (" + shape_label(r) + ")";
  };
  g.x = Col::working_set_bytes;
  // Per family: the shape series with the most working sets draws the line.
  std::vector<std::string> families;
  std::map<std::string, std::vector<ResultSeries>> by_family;
  for (ResultSeries& s : group_rows(m, g)) {
    const std::string f = family(*s.rows.front());
    if (!by_family.count(f)) families.push_back(f);
    by_family[f].push_back(std::move(s));
  }
  struct Chosen {
    ResultSeries series;
    std::vector<const ResultRow*> others;
  };
  std::vector<Chosen> chosen;
  for (const std::string& f : families) {
    auto& shapes = by_family[f];
    auto rank = [](const ResultSeries& s) {
      return std::make_pair(s.rows.size(), s.rows.back()->num_or(Col::working_set_bytes, 0));
    };
    std::size_t best = 0;
    for (std::size_t i = 1; i < shapes.size(); ++i) {
      if (rank(shapes[i]) > rank(shapes[best])) best = i;
    }
    Chosen c{shapes[best], {}};
    for (std::size_t i = 0; i < shapes.size(); ++i) {
      if (i != best) c.others.insert(c.others.end(), shapes[i].rows.begin(), shapes[i].rows.end());
    }
    chosen.push_back(std::move(c));
  }
  auto order = [](const Chosen& c) {
    const ResultRow& r = *c.series.rows.front();
    return std::make_tuple(r.str(Col::benchmark) != "decode_step", r.str(Col::benchmark), dtype_rank(r.str(Col::dtype)),
                           r.str(Col::dtype), cache_state_rank(r.str(Col::cache_state)), r.str(Col::layout));
  };
  std::stable_sort(chosen.begin(), chosen.end(), [&](const Chosen& a, const Chosen& b) { return order(a) < order(b); });
  std::vector<SeriesPanel> panels;
  for (Chosen& c : chosen) {
    const std::string& bench = c.series.rows.front()->str(Col::benchmark);
    if (panels.empty() || panels.back().title != bench) panels.push_back({bench, {}, {}});
    panels.back().series.push_back(std::move(c.series));
    panels.back().other_shapes.push_back(std::move(c.others));
  }
  return split_panels(std::move(panels), max_series);
}

std::vector<SeriesPanel> context_panels(const MachineResults& m, int threads, std::size_t max_series) {
  Grouping g;
  g.include = [threads](const ResultRow& r) {
    return is_decode_kernel(r) && r.num_or(Col::threads, 0) == threads && r.num(Col::context);
  };
  g.key = [](const ResultRow& r) {
    return r.str(Col::dtype) + "|" + r.str(Col::benchmark) + "|" + shape_label(r) + "|" + r.str(Col::layout) + "|" +
           r.str(Col::cache_state);
  };
  g.label = [](const ResultRow& r) {
    std::string s = r.str(Col::benchmark) == "decode_step" ? "" : r.str(Col::benchmark) + " ";
    s += shape_label(r);
    if (!r.str(Col::layout).empty() && r.str(Col::layout) != "head_major") s += " " + r.str(Col::layout);
    return s + " " + r.str(Col::cache_state);
  };
  g.x = Col::context;
  auto series = group_rows(m, g);
  auto order = [](const ResultSeries& s) {
    const ResultRow& r = *s.rows.front();
    return std::make_tuple(dtype_rank(r.str(Col::dtype)), r.str(Col::dtype), r.str(Col::benchmark) != "decode_step",
                           r.num_or(Col::layers, 0), r.num_or(Col::q_heads, 0), -r.num_or(Col::kv_heads, 0),
                           r.num_or(Col::head_dim, 0), r.str(Col::layout), cache_state_rank(r.str(Col::cache_state)));
  };
  std::stable_sort(series.begin(), series.end(),
                   [&](const ResultSeries& a, const ResultSeries& b) { return order(a) < order(b); });
  std::vector<SeriesPanel> panels;
  for (ResultSeries& s : series) {
    const std::string& dtype = s.rows.front()->str(Col::dtype);
    if (panels.empty() || panels.back().title != dtype) panels.push_back({dtype, {}, {}});
    panels.back().series.push_back(std::move(s));
  }
  return split_panels(std::move(panels), max_series);
}

std::vector<ResultSeries> thread_series(const MachineResults& m) {
  // dtype -> configuration -> context -> threads -> rows (several runs may repeat a point).
  using ByThreads = std::map<int, std::vector<const ResultRow*>>;
  std::map<std::string, std::map<std::string, std::map<double, ByThreads>>> groups;
  for (const ResultRow& r : m.summaries) {
    if (!is_decode_kernel(r) || r.str(Col::benchmark) != "decode_step" || !r.num(Col::threads) ||
        !r.num(Col::context) || !attained_gbps(r)) {
      continue;
    }
    const std::string config = shape_label(r) + "|" + r.str(Col::layout) + "|" + r.str(Col::cache_state);
    groups[r.str(Col::dtype)][config][*r.num(Col::context)][static_cast<int>(*r.num(Col::threads))].push_back(&r);
  }
  std::vector<ResultSeries> out;
  for (const auto& [dtype, configs] : groups) {
    const ByThreads* best = nullptr;
    std::tuple<double, std::size_t, double, int> best_rank{};
    for (const auto& [config, by_context] : configs) {
      for (const auto& [context, by_threads] : by_context) {
        if (by_threads.size() < 2) continue;
        const ResultRow& r = *by_threads.begin()->second.front();
        const std::tuple<double, std::size_t, double, int> rank{context, by_threads.size(),
                                                                r.num_or(Col::working_set_bytes, 0),
                                                                -cache_state_rank(r.str(Col::cache_state))};
        if (!best || rank > best_rank) {
          best = &by_threads;
          best_rank = rank;
        }
      }
    }
    if (!best) continue;
    const ResultRow& first = *best->begin()->second.front();
    ResultSeries s{dtype, dtype + " " + shape_label(first) + " ctx " + first.str(Col::context), {}};
    if (first.str(Col::cache_state) != "warm") s.label += " " + first.str(Col::cache_state);
    for (const auto& [t, rows] : *best) {
      auto sorted = rows;
      std::stable_sort(sorted.begin(), sorted.end(), [](const ResultRow* a, const ResultRow* b) {
        return *attained_gbps(*a) < *attained_gbps(*b);
      });
      s.rows.push_back(sorted[(sorted.size() - 1) / 2]);
    }
    out.push_back(std::move(s));
  }
  std::stable_sort(out.begin(), out.end(), [](const ResultSeries& a, const ResultSeries& b) {
    return dtype_rank(a.key) < dtype_rank(b.key);
  });
  return out;
}

}  // namespace kvb
