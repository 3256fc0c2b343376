#include "analysis/report_figures.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <set>
#include <sstream>

#include "analysis/result_series.h"
#include "analysis/roofline.h"
#include "analysis/text_table.h"

namespace kvb {
namespace {

constexpr const char* kPalette[] = {"#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd",
                                    "#8c564b", "#e377c2", "#17becf", "#bcbd22", "#7f7f7f"};
constexpr std::size_t kPaletteSize = std::size(kPalette);

std::string dtype_colour(const std::string& dtype) {
  if (dtype == "fp32") return kPalette[0];
  if (dtype == "fp16") return kPalette[1];
  if (dtype == "bf16") return kPalette[2];
  if (dtype == "int8") return kPalette[3];
  return kPalette[9];
}

int level_point_type(const std::string& level) {
  if (level == "L1") return 7;   // filled circle
  if (level == "L2") return 5;   // filled square
  if (level == "L3") return 9;   // filled triangle
  if (level == "DRAM") return 13;  // filled diamond
  return 1;
}

const char* kLevels[] = {"L1", "L2", "L3", "DRAM"};

std::string num(double v) {
  std::ostringstream s;
  s.precision(10);
  s << v;
  return s.str();
}

std::string q(const std::string& s) { return gnuplot_quote(s); }

// Running min/max over positive values (log axes), shared by every machine's figure.
struct Range {
  double lo = std::numeric_limits<double>::infinity();
  double hi = 0;
  void add(double v) {
    if (v > 0 && std::isfinite(v)) {
      lo = std::min(lo, v);
      hi = std::max(hi, v);
    }
  }
  bool valid() const { return hi > 0; }
  std::string gnuplot(double pad) const {
    return "[" + num(lo / pad) + ":" + num(hi * pad) + "]";
  }
};

// Vertical cache-size markers for working-set axes.
std::string cache_markers(const MachineResults& m) {
  std::ostringstream s;
  int tag = 1;
  auto marker = [&](const std::string& name, std::optional<double> bytes) {
    if (!bytes || *bytes <= 0) return;
    s << "  set arrow " << tag << " from " << num(*bytes) << ", graph 0 to " << num(*bytes)
      << ", graph 1 nohead dt 2 lw 1.5 lc rgb \"#555555\" front\n";
    s << "  set label " << tag << " " << q(name + " " + format_bytes(*bytes)) << " at " << num(*bytes)
      << ", graph 0.97 rotate by 90 right offset -1.2,0 tc rgb \"#555555\" font \",9\" front noenhanced\n";
    ++tag;
  };
  marker("L1d", m.l1d_bytes);
  marker("L2", m.l2_bytes);
  marker("LLC", m.llc_bytes);
  return s.str();
}

// Tics at powers of 4 bytes (16 KiB, 64 KiB, ...) labelled in binary units.
std::string bytes_tics(const Range& r, double pad) {
  std::string tics;
  for (double b = 1024; b <= r.hi * pad * 1.0001; b *= 4) {
    if (b < r.lo / pad) continue;
    tics += (tics.empty() ? "" : ", ") + q(format_bytes(b)) + " " + num(b);
  }
  return "  set xtics (" + tics + ")\n";
}

// Tics at powers of 2 for log axes of small ranges (arithmetic intensity).
std::string power_of_two_tics(const Range& r, double pad) {
  std::string tics;
  for (double v = std::exp2(std::floor(std::log2(r.lo / pad))); v <= r.hi * pad * 1.0001; v *= 2) {
    tics += (tics.empty() ? "" : ", ") + q(num(v)) + " " + num(v);
  }
  return "  set xtics (" + tics + ")\n";
}

ReportFigure roofline(const MachineResults& m, const Range& x, const Range& y) {
  const int threads = m.roofline_threads();
  std::ostringstream data, body;
  // One data block per (dtype, ws_level): colour by dtype, point type by level.
  std::map<std::pair<std::string, std::string>, std::vector<RooflinePoint>> groups;
  for (const ResultRow& r : m.summaries) {
    if (r.is_ceiling() || r.failed_validation()) continue;
    if (auto p = roofline_point(r.num(Col::bytes_read), r.num(Col::bytes_written), r.num(Col::flops),
                                r.num(Col::ns_per_step))) {
      groups[{r.str(Col::dtype), r.str(Col::ws_level)}].push_back(*p);
    }
  }
  std::vector<std::string> plots;
  const auto peak = m.fma_peak(threads);
  body << "  set title " << q("Roofline: " + m.label + ", roofs at " + std::to_string(threads) +
                              (threads == 1 ? " thread" : " threads") +
                              (peak ? std::string() : std::string(" (no FMA ceiling measured)")))
       << " noenhanced\n"
       << "  set logscale xy\n"
       << "  set xlabel \"arithmetic intensity (FLOP/byte)\"\n"
       << "  set ylabel \"attained performance (GFLOP/s)\"\n"
       << "  set xrange " << x.gnuplot(2) << "\n  set yrange " << y.gnuplot(2) << "\n"
       << power_of_two_tics(x, 2)
       << "  set samples 400\n";
  if (peak) body << "  peak = " << num(*peak) << "\n";
  int roof_index = 0;
  for (const char* level : kLevels) {
    const auto bw = m.read_roof(level, threads);
    if (!bw) continue;
    const std::string f = std::string("roof_") + level;
    body << "  bw_" << level << " = " << num(*bw) << "\n";
    body << "  " << f << "(x) = " << (peak ? "(x*bw_" + std::string(level) + " < peak ? x*bw_" + level + " : peak)"
                                          : "x*bw_" + std::string(level)) << "\n";
    plots.push_back(f + "(x) with lines lw 2 dt " + std::to_string(1 + roof_index) + " lc rgb \"#444444\" title " +
                    q(std::string(level) + " read roof " + format_number(*bw, 3) + " GB/s"));
    ++roof_index;
  }
  if (peak) {
    plots.push_back("peak with lines lw 2 lc rgb \"#000000\" title " +
                    q("FP32 FMA peak " + format_number(*peak, 3) + " GFLOP/s"));
  }
  int block = 0;
  for (const auto& [key, points] : groups) {
    data << "# dtype=" << key.first << " ws_level=" << key.second << "\n# ai_flop_per_byte gflops gbps\n";
    for (const auto& p : points) data << num(p.ai_flop_per_byte) << " " << num(p.gflops) << " " << num(p.gbps) << "\n";
    data << "\n\n";
    plots.push_back("datafile index " + std::to_string(block++) + " using 1:2 with points pt " +
                    std::to_string(level_point_type(key.second)) + " ps 1.3 lc rgb \"" + dtype_colour(key.first) +
                    "\" title " + q(key.first + " in " + (key.second.empty() ? "?" : key.second)));
  }
  if (block == 0) data << "# no kernel rows\n";
  if (plots.empty()) return {};
  body << "  plot ";
  for (std::size_t i = 0; i < plots.size(); ++i) body << (i ? ", \\\n       " : "") << plots[i];
  body << "\n";
  ReportFigure f;
  f.machine_id = m.id;
  f.kind = "roofline";
  f.caption = "Roofline of " + m.label + ": kernels (median rows) at their arithmetic intensity; slanted roofs are "
              "the measured read bandwidth per cache level, the flat roof the measured FP32 FMA peak" +
              (peak ? std::string() : std::string(" (not measured in this run)")) + ".";
  f.figure = {"roofline_" + m.id, "Roofline, " + m.label, 1000, 620, data.str(), body.str()};
  return f;
}

ReportFigure llc_fit(const MachineResults& m, const std::vector<ResultSeries>& series,
                     const std::vector<ResultSeries>& ceilings, const Range& ws, const Range& gbps, const Range& ns,
                     double knee_drop) {
  if (series.empty() && ceilings.empty()) return {};
  std::ostringstream data, top, bottom;
  std::vector<std::string> top_plots, bottom_plots;
  int block = 0;
  auto add_series = [&](const ResultSeries& s, const std::string& style, const std::string& title) {
    data << "# " << s.label << "\n# working_set_bytes gbps ns_per_step\n";
    for (const ResultRow* r : s.rows) {
      const auto w = r->num(Col::working_set_bytes);
      const auto g = attained_gbps(*r);
      if (w && g) data << num(*w) << " " << num(*g) << " " << num(r->num_or(Col::ns_per_step, NAN)) << "\n";
    }
    data << "\n\n";
    top_plots.push_back("datafile index " + std::to_string(block) + " using 1:2" + style + " title " + q(title));
    bottom_plots.push_back("datafile index " + std::to_string(block) + " using 1:3" + style + " notitle");
    ++block;
  };
  for (std::size_t i = 0; i < series.size(); ++i) {
    add_series(series[i],
               " with linespoints pt 7 ps 0.8 lw 1.5 lc rgb \"" + std::string(kPalette[i % kPaletteSize]) + "\" dt " +
                   std::to_string(1 + i / kPaletteSize),
               series[i].label);
  }
  // The read-ceiling sweeps show the cache plateaus of the hardware itself.
  for (std::size_t i = 0; i < ceilings.size(); ++i) {
    add_series(ceilings[i],
               " with linespoints pt 4 ps 0.8 lw 1.5 lc rgb \"#444444\" dt " + std::to_string(2 + i % 4),
               ceilings[i].label + " (reference)");
  }
  auto all_series = series;
  all_series.insert(all_series.end(), ceilings.begin(), ceilings.end());
  const auto knees = series_knees(all_series, cache_levels(m), knee_drop);
  data << "# knees: last working set before a drop of >= " << format_percent(knee_drop, 0)
       << "\n# working_set_bytes gbps ns_per_step\n";
  for (const auto& k : knees) {
    const ResultRow* before = nullptr;
    for (const ResultRow* r : k.series->rows) {
      if (r->num_or(Col::working_set_bytes, -1) == k.knee.working_set_bytes) before = r;
    }
    data << num(k.knee.working_set_bytes) << " " << num(k.knee.gbps_before) << " "
         << num(before ? before->num_or(Col::ns_per_step, NAN) : NAN) << "\n";
  }
  if (knees.empty()) data << "nan nan nan\n";
  if (!knees.empty()) {
    top_plots.push_back("datafile index " + std::to_string(block) +
                        " using 1:2 with points pt 6 ps 2.5 lw 2 lc rgb \"black\" title " +
                        q("knee (drop >= " + format_percent(knee_drop, 0).substr(1) + ")"));
    bottom_plots.push_back("datafile index " + std::to_string(block) +
                           " using 1:3 with points pt 6 ps 2.5 lw 2 lc rgb \"black\" notitle");
  }
  std::ostringstream body;
  body << "  set multiplot layout 2,1 title " << q("LLC fit: " + m.label) << " noenhanced\n"
       << "  set lmargin at screen 0.09\n  set rmargin at screen 0.62\n"
       << "  set logscale x\n" << bytes_tics(ws, 1.6)
       << "  set xrange " << ws.gnuplot(1.6) << "\n"
       << cache_markers(m)
       << "  set key at screen 0.99, screen 0.93 right top\n"
       << "  set xlabel \"working set (bytes, log scale)\"\n"
       << "  set ylabel \"attained bandwidth (GB/s)\"\n"
       << "  set yrange [0:" << num(gbps.hi * 1.1) << "]\n"
       << "  plot ";
  for (std::size_t i = 0; i < top_plots.size(); ++i) body << (i ? ", \\\n       " : "") << top_plots[i];
  body << "\n  unset key\n  set logscale y\n  set yrange " << ns.gnuplot(1.5) << "\n"
       << "  set ylabel \"time per step (ns, log scale)\"\n"
       << "  plot ";
  for (std::size_t i = 0; i < bottom_plots.size(); ++i) body << (i ? ", \\\n       " : "") << bottom_plots[i];
  body << "\n  unset multiplot\n";
  ReportFigure f;
  f.machine_id = m.id;
  f.kind = "llc_fit";
  f.caption = "LLC fit of " + m.label + ": attained bandwidth (top) and time per step (bottom) against the "
              "working set; grey lines are the read-ceiling sweeps, dashed verticals the cache sizes from the run's "
              "metadata, circles the knees.";
  f.figure = {"llc_fit_" + m.id, "LLC fit, " + m.label, 1250, 820, data.str(), body.str()};
  return f;
}

bool decode_like(const ResultRow& r) { return r.num(Col::context).has_value() && r.num(Col::tokens_per_s).has_value(); }

ReportFigure context_figure(const MachineResults& m, const std::vector<ResultSeries>& series, const Range& ctx,
                            const Range& gbps, const Range& tps) {
  std::ostringstream data, body;
  std::vector<std::string> top, bottom;
  int block = 0;
  for (std::size_t i = 0; i < series.size(); ++i) {
    const auto& s = series[i];
    if (!decode_like(*s.rows.front())) continue;
    data << "# " << s.label << "\n# context gbps tokens_per_s tokens_per_s_bound\n";
    for (const ResultRow* r : s.rows) {
      const auto g = attained_gbps(*r);
      const double bytes = r->num_or(Col::bytes_read, 0) + r->num_or(Col::bytes_written, 0);
      auto roof = m.read_roof(r->str(Col::ws_level), static_cast<int>(r->num_or(Col::threads, 0)));
      if (!roof) roof = r->num(Col::ceiling_gbps);
      const double bound = (roof && bytes > 0) ? *roof * 1e9 / bytes : NAN;
      data << num(r->num_or(Col::context, NAN)) << " " << num(g.value_or(NAN)) << " "
           << num(r->num_or(Col::tokens_per_s, NAN)) << " " << num(bound) << "\n";
    }
    data << "\n\n";
    const std::string colour = kPalette[block % kPaletteSize];
    const std::string idx = "datafile index " + std::to_string(block);
    top.push_back(idx + " using 1:2 with linespoints pt 7 ps 0.8 lw 1.5 lc rgb \"" + colour + "\" title " + q(s.label));
    bottom.push_back(idx + " using 1:3 with linespoints pt 7 ps 0.8 lw 1.5 lc rgb \"" + colour + "\" notitle");
    bottom.push_back(idx + " using 1:4 with lines dt 2 lw 1.5 lc rgb \"" + colour + "\" notitle");
    ++block;
  }
  if (block == 0) return {};
  body << "  set multiplot layout 2,1 title " << q("Bandwidth and tokens/s vs context: " + m.label) << " noenhanced\n"
       << "  set lmargin at screen 0.09\n  set rmargin at screen 0.62\n"
       << "  set logscale x 2\n  set xrange " << ctx.gnuplot(1.4) << "\n"
       << "  set key at screen 0.99, screen 0.93 right top\n"
       << "  set xlabel \"context (cached positions, log2 scale)\"\n"
       << "  set ylabel \"attained bandwidth (GB/s)\"\n  set yrange [0:" << num(gbps.hi * 1.1) << "]\n"
       << "  plot ";
  for (std::size_t i = 0; i < top.size(); ++i) body << (i ? ", \\\n       " : "") << top[i];
  body << "\n  unset key\n  set logscale y\n  set yrange " << tps.gnuplot(1.5) << "\n"
       << "  set ylabel \"tokens/s (solid: measured, dashed: bound)\"\n"
       << "  plot ";
  for (std::size_t i = 0; i < bottom.size(); ++i) body << (i ? ", \\\n       " : "") << bottom[i];
  body << "\n  unset multiplot\n";
  ReportFigure f;
  f.machine_id = m.id;
  f.kind = "context";
  f.caption = "Bandwidth vs context of " + m.label + " per dtype and thread count (top) and decode tokens/s "
              "(bottom; solid: measured attention step, dashed: bound = measured read ceiling at that cache "
              "level / KV bytes per step).";
  f.figure = {"context_" + m.id, "Bandwidth vs context, " + m.label, 1250, 820, data.str(), body.str()};
  return f;
}

std::string without_threads_key(const ResultRow& r) {
  std::vector<Col> cols;
  for (Col c : kConfigColumns) {
    if (c != Col::threads && c != Col::ws_level && c != Col::pin && c != Col::context) cols.push_back(c);
  }
  return r.str(Col::run_id) + "|" + join_columns(r, cols, "|");
}

ReportFigure thread_figure(const MachineResults& m, const Range& threads_range, const Range& gbps) {
  // Per kernel configuration (all but threads and context): the largest context that ran at
  // >= 2 thread counts, so each configuration is one line.
  std::map<std::string, std::map<double, std::map<int, const ResultRow*>>> groups;
  for (const ResultRow& r : m.summaries) {
    if (r.is_ceiling() || r.failed_validation() || !r.num(Col::threads)) continue;
    groups[without_threads_key(r)][r.num_or(Col::context, 0)][static_cast<int>(*r.num(Col::threads))] = &r;
  }
  std::vector<std::pair<std::string, const std::map<int, const ResultRow*>*>> chosen;
  for (const auto& [k, by_context] : groups) {
    for (auto it = by_context.rbegin(); it != by_context.rend(); ++it) {
      if (it->second.size() >= 2) {
        const ResultRow& r = *it->second.begin()->second;
        const std::string label = series_label(r);
        chosen.emplace_back(label.substr(0, label.rfind(' ')) +
                                (r.str(Col::context).empty() ? "" : " ctx " + r.str(Col::context)),
                            &it->second);
        break;
      }
    }
  }
  std::set<int> roof_threads;
  for (const auto& [key, bw] : m.read_roof_gbps) roof_threads.insert(key.second);
  if (chosen.empty() && roof_threads.size() < 2) return {};
  constexpr std::size_t kMaxSeries = 12;  // keep the legend readable
  if (chosen.size() > kMaxSeries) chosen.resize(kMaxSeries);
  std::ostringstream data, body;
  std::vector<std::string> plots;
  int block = 0;
  for (std::size_t i = 0; i < chosen.size(); ++i) {
    data << "# " << chosen[i].first << "\n# threads gbps\n";
    for (const auto& [t, r] : *chosen[i].second) data << t << " " << num(attained_gbps(*r).value_or(NAN)) << "\n";
    data << "\n\n";
    plots.push_back("datafile index " + std::to_string(block++) + " using 1:2 with linespoints pt 7 lw 1.5 lc rgb \"" +
                    kPalette[i % kPaletteSize] + "\" title " + q(chosen[i].first));
  }
  if (roof_threads.size() >= 2) {
    int dash = 2;
    for (const char* level : kLevels) {
      std::ostringstream rows;
      int count = 0;
      for (int t : roof_threads) {
        if (auto bw = m.read_roof(level, t)) {
          rows << t << " " << num(*bw) << "\n";
          ++count;
        }
      }
      if (count < 2) continue;
      data << "# ceiling_read " << level << "\n# threads gbps\n" << rows.str() << "\n\n";
      plots.push_back("datafile index " + std::to_string(block++) + " using 1:2 with linespoints pt 4 dt " +
                      std::to_string(dash++) + " lw 1.5 lc rgb \"#444444\" title " + q(std::string(level) + " read ceiling"));
    }
  }
  if (plots.empty()) return {};
  body << "  set title " << q("Thread scaling: " + m.label) << " noenhanced\n"
       << "  set xlabel \"worker threads\"\n  set ylabel \"attained bandwidth (GB/s)\"\n"
       << "  set xrange [" << num(std::max(0.0, threads_range.lo - 0.5)) << ":" << num(threads_range.hi + 0.5) << "]\n"
       << "  set xtics 1\n  set yrange [0:" << num(gbps.hi * 1.1) << "]\n"
       << "  plot ";
  for (std::size_t i = 0; i < plots.size(); ++i) body << (i ? ", \\\n       " : "") << plots[i];
  body << "\n";
  ReportFigure f;
  f.machine_id = m.id;
  f.kind = "threads";
  f.caption = "Thread scaling of " + m.label + ": attained bandwidth per thread count (kernels at their largest "
              "working set; dashed: measured read ceilings).";
  f.figure = {"threads_" + m.id, "Thread scaling, " + m.label, 1000, 600, data.str(), body.str()};
  return f;
}

}  // namespace

std::vector<ReportFigure> build_report_figures(const std::vector<MachineResults>& machines, double knee_drop) {
  // Shared ranges so figures of the same kind line up across machines.
  Range ai, gflops, ws, gbps, ns, ctx, tps, threads;
  for (const auto& m : machines) {
    const int t = m.roofline_threads();
    const auto peak = m.fma_peak(t);
    if (peak) gflops.add(*peak);
    for (const auto& [key, bw] : m.read_roof_gbps) {
      gbps.add(bw);
      threads.add(key.second);
      if (key.second == t && peak) ai.add(*peak / bw);  // ridge point
    }
    if (m.l1d_bytes) ws.add(*m.l1d_bytes);
    if (m.l2_bytes) ws.add(*m.l2_bytes);
    if (m.llc_bytes) ws.add(*m.llc_bytes);
    for (const ResultRow& r : m.summaries) {
      if (r.str(Col::benchmark) == "ceiling_read") {
        ws.add(r.num_or(Col::working_set_bytes, 0));
        ns.add(r.num_or(Col::ns_per_step, 0));
      }
      if (r.is_ceiling() || r.failed_validation()) continue;
      if (auto p = roofline_point(r.num(Col::bytes_read), r.num(Col::bytes_written), r.num(Col::flops),
                                  r.num(Col::ns_per_step))) {
        ai.add(p->ai_flop_per_byte);
        gflops.add(p->gflops);
      }
      if (auto g = attained_gbps(r)) gbps.add(*g);
      ws.add(r.num_or(Col::working_set_bytes, 0));
      ns.add(r.num_or(Col::ns_per_step, 0));
      threads.add(r.num_or(Col::threads, 0));
      if (decode_like(r)) {
        ctx.add(r.num_or(Col::context, 0));
        tps.add(r.num_or(Col::tokens_per_s, 0));
        const double bytes = r.num_or(Col::bytes_read, 0) + r.num_or(Col::bytes_written, 0);
        if (auto roof = m.read_roof(r.str(Col::ws_level), static_cast<int>(r.num_or(Col::threads, 0)));
            roof && bytes > 0) {
          tps.add(*roof * 1e9 / bytes);
        }
      }
    }
  }
  if (!gbps.valid()) gbps.add(1);
  if (!ai.valid() && gbps.hi > 0) {  // ceilings only: show roofs over typical intensities
    ai.add(1.0 / 8);
    ai.add(16);
  }
  if (!gflops.valid() && ai.valid()) {
    for (const auto& m : machines) {
      for (const auto& [key, bw] : m.read_roof_gbps) gflops.add(bw * ai.hi);
    }
  }
  // Roofs span the whole x range: make sure the y range reaches them at the low end.
  if (ai.valid()) {
    for (const auto& m : machines) {
      for (const auto& [key, bw] : m.read_roof_gbps) {
        if (key.second == m.roofline_threads()) gflops.add(bw * ai.lo / 2);
      }
    }
  }
  std::vector<ReportFigure> out;
  auto keep = [&](ReportFigure f) {
    if (!f.kind.empty()) out.push_back(std::move(f));
  };
  for (const auto& m : machines) {
    if (ai.valid() && gflops.valid()) keep(roofline(m, ai, gflops));
    const auto series = kernel_series(m);
    if (ws.valid() && ns.valid()) keep(llc_fit(m, series, ceiling_read_series(m), ws, gbps, ns, knee_drop));
    if (ctx.valid() && tps.valid()) keep(context_figure(m, series, ctx, gbps, tps));
    if (threads.valid() && threads.hi > threads.lo) keep(thread_figure(m, threads, gbps));
  }
  return out;
}

}  // namespace kvb
