#include "analysis/report_figures.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <set>
#include <sstream>

#include "analysis/result_series.h"
#include "analysis/roofline.h"
#include "analysis/series_selection.h"
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
                    "\" notitle");
  }
  // Legend: colour = dtype, point = cache level (one entry each, not one per combination).
  std::set<std::string> dtypes, levels;
  for (const auto& [key, points] : groups) {
    dtypes.insert(key.first);
    levels.insert(key.second);
  }
  for (const std::string& d : dtypes) {
    plots.push_back("keyentry with points pt 7 ps 1.3 lc rgb \"" + dtype_colour(d) + "\" title " + q(d.empty() ? "?" : d));
  }
  for (const char* level : kLevels) {
    if (levels.count(level)) {
      plots.push_back("keyentry with points pt " + std::to_string(level_point_type(level)) +
                      " ps 1.3 lc rgb \"#555555\" title " + q(std::string("in ") + level));
    }
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

// 1-2-5 tics for a log axis over [lo, hi], so a few decades stay readable.
std::string log_tics(const char* axis, double lo, double hi) {
  std::string tics;
  for (double decade = std::pow(10.0, std::floor(std::log10(lo))); decade <= hi; decade *= 10) {
    for (double m : {1.0, 2.0, 5.0}) {
      const double v = decade * m;
      if (v >= lo && v <= hi) tics += (tics.empty() ? "" : ", ") + q(format_number(v, 3)) + " " + num(v);
    }
  }
  return "  set " + std::string(axis) + "tics (" + tics + ")\n";
}

std::string threads_text(int t) { return std::to_string(t) + (t == 1 ? " thread" : " threads"); }

// Vertical markers for L2 (per core) and the LLC, where they fall inside the x range.
std::string cache_markers(const MachineResults& m, const Range& x, double pad) {
  std::ostringstream s;
  int tag = 1;
  auto marker = [&](const std::string& name, std::optional<double> bytes) {
    if (!bytes || *bytes < x.lo / pad || *bytes > x.hi * pad) return;
    s << "  set arrow " << tag << " from " << num(*bytes) << ", graph 0 to " << num(*bytes)
      << ", graph 1 nohead dt 2 lw 1.5 lc rgb \"#555555\" front\n";
    s << "  set label " << tag << " " << q(name + " " + format_bytes(*bytes)) << " at " << num(*bytes)
      << ", graph 0.97 rotate by 90 right offset -1.0,0 tc rgb \"#555555\" font \",9\" front noenhanced\n";
    ++tag;
  };
  marker("L2/core", m.l2_bytes);
  marker("LLC", m.llc_bytes);
  return s.str();
}

std::string plot_command(const std::vector<std::string>& plots) {
  std::string s = "  plot ";
  for (std::size_t i = 0; i < plots.size(); ++i) s += (i ? ", \\\n       " : "") + plots[i];
  return s + "\n";
}

// Horizontal read-ceiling references at the figure's thread count.
struct CeilingLine {
  std::string level;
  double gbps;
};

std::vector<CeilingLine> ceiling_lines(const MachineResults& m, int threads) {
  std::vector<CeilingLine> out;
  for (const char* level : {"L3", "DRAM"}) {
    if (auto bw = m.read_roof(level, threads)) out.push_back({level, *bw});
  }
  return out;
}

std::vector<std::string> ceiling_plots(const std::vector<CeilingLine>& lines) {
  std::vector<std::string> plots;
  for (const auto& c : lines) {
    plots.push_back(num(c.gbps) + " with lines lw 2 dt " + (c.level == "DRAM" ? "2" : "4") +
                    " lc rgb \"#333333\" title " + q(c.level + " read ceiling " + format_number(c.gbps, 3) + " GB/s"));
  }
  return plots;
}

std::string missing_ceilings_note(const std::vector<CeilingLine>& lines, int threads) {
  if (lines.size() == 2) return "";
  return " (no L3/DRAM read ceiling measured at " + threads_text(threads) + ")";
}

std::string series_style(std::size_t index, const ResultRow& first) {
  const bool cold = first.str(Col::cache_state) == "cold";
  return " with linespoints pt " + std::string(cold ? "6" : "7") + " ps 0.9 lw 2 lc rgb \"" +
         kPalette[index % kPaletteSize] + "\" dt " + (cold ? "3" : "1");
}

// Series colour by dtype where a panel mixes dtypes, so the same dtype keeps its colour.
std::string dtype_series_style(const ResultRow& first) {
  const bool cold = first.str(Col::cache_state) == "cold";
  return " with linespoints pt " + std::string(cold ? "6" : "7") + " ps 0.9 lw 2 lc rgb \"" +
         dtype_colour(first.str(Col::dtype)) + "\" dt " + (cold ? "3" : "1");
}

std::pair<int, int> grid_for(std::size_t panels) {
  const int cols = panels > 1 ? 2 : 1;
  return {static_cast<int>((panels + cols - 1) / cols), cols};
}

ReportFigure llc_fit(const MachineResults& m, int threads, const std::vector<SeriesPanel>& panels, const Range& ws,
                     const Range& gbps, double knee_drop) {
  if (panels.empty()) return {};
  const auto ceilings = ceiling_lines(m, threads);
  std::ostringstream data, body;
  int block = 0;
  const int rows = static_cast<int>(panels.size());
  body << "  set multiplot layout " << rows << ",1 title "
       << q("LLC fit: " + m.label + ", " + threads_text(threads)) << " noenhanced\n"
       << "  set logscale xy\n" << bytes_tics(ws, 1.6) << "  set xrange " << ws.gnuplot(1.6) << "\n"
       << "  set yrange " << gbps.gnuplot(1.3) << "\n" << log_tics("y", gbps.lo / 1.3, gbps.hi * 1.3)
       << cache_markers(m, ws, 1.6)
       << "  set key outside right top vertical Left reverse noenhanced box width 1\n"
       << "  set xlabel \"KV working set (bytes, log scale)\"\n"
       << "  set ylabel \"attained bandwidth (GB/s, log scale)\"\n";
  for (const SeriesPanel& panel : panels) {
    std::vector<std::string> plots;
    for (std::size_t i = 0; i < panel.series.size(); ++i) {
      const ResultSeries& s = panel.series[i];
      data << "# " << panel.title << " " << s.label << "\n# working_set_bytes gbps context layers\n";
      for (const ResultRow* r : s.rows) {
        data << num(*r->num(Col::working_set_bytes)) << " " << num(*attained_gbps(*r)) << " "
             << r->str(Col::context) << " " << r->str(Col::layers) << "\n";
      }
      data << "\n\n";
      plots.push_back("datafile index " + std::to_string(block++) + " using 1:2" + dtype_series_style(*s.rows.front()) +
                      " title " + q(s.label));
    }
    for (std::size_t i = 0; i < panel.other_shapes.size(); ++i) {
      if (panel.other_shapes[i].empty()) continue;
      data << "# " << panel.title << " " << panel.series[i].label << ": other shapes"
           << "\n# working_set_bytes gbps context layers q_heads kv_heads\n";
      for (const ResultRow* r : panel.other_shapes[i]) {
        data << num(*r->num(Col::working_set_bytes)) << " " << num(*attained_gbps(*r)) << " " << r->str(Col::context)
             << " " << r->str(Col::layers) << " " << r->str(Col::q_heads) << " " << r->str(Col::kv_heads) << "\n";
      }
      data << "\n\n";
      const bool cold = panel.series[i].rows.front()->str(Col::cache_state) == "cold";
      plots.push_back("datafile index " + std::to_string(block++) + " using 1:2 with points pt " + (cold ? "6" : "7") +
                      " ps 0.5 lc rgb \"" + dtype_colour(panel.series[i].rows.front()->str(Col::dtype)) + "\" notitle");
    }
    const auto ceiling = ceiling_plots(ceilings);
    plots.insert(plots.end(), ceiling.begin(), ceiling.end());
    const auto knees = series_knees(panel.series, cache_levels(m), knee_drop);
    if (!knees.empty()) {
      data << "# knees of " << panel.title << ": last working set before a drop of >= " << format_percent(knee_drop, 0)
           << "\n# working_set_bytes gbps\n";
      for (const auto& k : knees) data << num(k.knee.working_set_bytes) << " " << num(k.knee.gbps_before) << "\n";
      data << "\n\n";
      plots.push_back("datafile index " + std::to_string(block++) +
                      " using 1:2 with points pt 6 ps 2.8 lw 2 lc rgb \"black\" title " +
                      q("knee (drop >= " + format_percent(knee_drop, 0).substr(1) + ")"));
    }
    body << "  set title " << q(panel.title) << " noenhanced\n" << plot_command(plots);
  }
  body << "  unset multiplot\n";
  ReportFigure f;
  f.machine_id = m.id;
  f.kind = "llc_fit";
  f.caption = "LLC fit of " + m.label + " at " + threads_text(threads) +
              ": attained bandwidth against KV working set, one line per dtype and cache state through the KV shape "
              "with the most working sets (runs pooled; hollow dotted: cold), small dots the other shapes measured; "
              "horizontal lines are the measured L3 and DRAM read ceilings "
              "at that thread count" + missing_ceilings_note(ceilings, threads) +
              ", dashed verticals the per-core L2 and the LLC, circles the knees.";
  f.figure = {"llc_fit_" + m.id, "LLC fit, " + m.label, 1150, 140 + 480 * rows, data.str(), body.str()};
  return f;
}

ReportFigure context_figure(const MachineResults& m, int threads, const std::vector<SeriesPanel>& panels,
                            const Range& ctx, const Range& gbps) {
  if (panels.empty()) return {};
  const auto ceilings = ceiling_lines(m, threads);
  const auto [rows, cols] = grid_for(panels.size());
  std::ostringstream data, body;
  int block = 0;
  body << "  set multiplot layout " << rows << "," << cols << " title "
       << q("Bandwidth vs context: " + m.label + ", " + threads_text(threads)) << " noenhanced\n"
       << "  set logscale x 2\n  set xrange " << ctx.gnuplot(1.4) << "\n"
       << "  set logscale y\n  set yrange " << gbps.gnuplot(1.3) << "\n" << log_tics("y", gbps.lo / 1.3, gbps.hi * 1.3)
       << "  set key outside right top vertical Left reverse noenhanced box width 1 font \",9\"\n"
       << "  set xlabel \"context (cached positions, log2 scale)\"\n"
       << "  set ylabel \"attained bandwidth (GB/s, log scale)\"\n";
  for (const SeriesPanel& panel : panels) {
    std::vector<std::string> plots;
    std::map<std::string, std::size_t> colour_of_shape;  // warm and cold of one shape share a colour
    for (std::size_t i = 0; i < panel.series.size(); ++i) {
      const ResultSeries& s = panel.series[i];
      const std::string shape = s.label.substr(0, s.label.rfind(' '));
      const std::size_t colour = colour_of_shape.emplace(shape, colour_of_shape.size()).first->second;
      data << "# " << panel.title << " " << s.label << "\n# context gbps working_set_bytes tokens_per_s\n";
      for (const ResultRow* r : s.rows) {
        data << num(*r->num(Col::context)) << " " << num(*attained_gbps(*r)) << " "
             << num(r->num_or(Col::working_set_bytes, NAN)) << " " << num(r->num_or(Col::tokens_per_s, NAN)) << "\n";
      }
      data << "\n\n";
      plots.push_back("datafile index " + std::to_string(block++) + " using 1:2" + series_style(colour, *s.rows.front()) +
                      " title " + q(s.label));
    }
    const auto ceiling = ceiling_plots(ceilings);
    plots.insert(plots.end(), ceiling.begin(), ceiling.end());
    body << "  set title " << q(panel.title) << " noenhanced\n" << plot_command(plots);
  }
  body << "  unset multiplot\n";
  ReportFigure f;
  f.machine_id = m.id;
  f.kind = "context";
  f.caption = "Bandwidth vs context of " + m.label + " at " + threads_text(threads) +
              ", one panel per dtype, one line per KV shape and cache state (hollow dotted: cold); horizontal lines "
              "are the measured L3 and DRAM read ceilings at that thread count" +
              missing_ceilings_note(ceilings, threads) + ". Tokens/s per point are in the figure's data file.";
  f.figure = {"context_" + m.id, "Bandwidth vs context, " + m.label, cols == 1 ? 1150 : 1700, 140 + 460 * rows,
              data.str(), body.str()};
  return f;
}

ReportFigure thread_figure(const MachineResults& m, const std::vector<ResultSeries>& series, const Range& threads_range,
                           const Range& gbps, double pct_hi) {
  std::set<int> roof_threads;
  for (const auto& [key, bw] : m.read_roof_gbps) {
    if (key.first == "DRAM") roof_threads.insert(key.second);
  }
  if (series.empty() && roof_threads.size() < 2) return {};
  std::ostringstream data, body;
  std::vector<std::string> left, right;
  int block = 0;
  for (const ResultSeries& s : series) {
    data << "# " << s.label << " (ws_level per point in column 4)\n# threads gbps pct_of_read_ceiling ws_level\n";
    for (const ResultRow* r : s.rows) {
      const int t = static_cast<int>(r->num_or(Col::threads, 0));
      const auto g = attained_gbps(*r);
      // Against the ceiling the row's own run measured (machines drift between runs); the best
      // pooled ceiling only for rows that lack one.
      const auto own = r->num(Col::ceiling_gbps);
      const auto roof = (own && *own > 0) ? own : m.read_roof(r->str(Col::ws_level), t);
      const double pct = (g && roof && *roof > 0) ? 100 * *g / *roof : r->num_or(Col::pct_of_ceiling, NAN);
      data << t << " " << num(g.value_or(NAN)) << " " << num(pct) << " " << r->str(Col::ws_level) << "\n";
    }
    data << "\n\n";
    const std::string style = " with linespoints pt 7 ps 1 lw 2 lc rgb \"" + dtype_colour(s.rows.front()->str(Col::dtype)) + "\"";
    const std::string idx = "datafile index " + std::to_string(block++);
    left.push_back(idx + " using 1:2" + style + " title " + q(s.label + " (" + s.rows.back()->str(Col::ws_level) + ")"));
    right.push_back(idx + " using 1:3" + style + " notitle");
  }
  if (!roof_threads.empty()) {
    data << "# ceiling_read DRAM\n# threads gbps\n";
    for (int t : roof_threads) data << t << " " << num(*m.read_roof("DRAM", t)) << "\n";
    data << "\n\n";
    left.push_back("datafile index " + std::to_string(block++) +
                   " using 1:2 with linespoints pt 4 ps 1.2 dt 2 lw 2 lc rgb \"#333333\" title \"DRAM read ceiling\"");
  }
  right.push_back("100 with lines dt 2 lw 1.5 lc rgb \"#333333\" notitle");
  const std::string xrange = "[" + num(std::max(0.0, threads_range.lo - 0.5)) + ":" + num(threads_range.hi + 0.5) + "]";
  std::string xtics = "  set xtics (";
  {
    std::set<int> ts(roof_threads);
    for (const auto& s : series) {
      for (const ResultRow* r : s.rows) ts.insert(static_cast<int>(r->num_or(Col::threads, 0)));
    }
    bool first = true;
    for (int t : ts) {
      xtics += (first ? "" : ", ") + std::to_string(t);
      first = false;
    }
    xtics += ")\n";
  }
  body << "  set multiplot title " << q("Thread scaling: " + m.label) << " noenhanced\n"
       << "  set xlabel \"worker threads\"\n  set xrange " << xrange << "\n" << xtics
       << "  set tmargin at screen 0.88\n  set bmargin at screen 0.30\n"
       << "  set lmargin at screen 0.07\n  set rmargin at screen 0.47\n"
       << "  set key at screen 0.5, screen 0.02 center bottom horizontal maxrows 3 width 2 noenhanced box\n"
       << "  set title \"decode_step bandwidth (largest context per dtype)\" noenhanced\n"
       << "  set ylabel \"attained bandwidth (GB/s)\"\n  set yrange [0:" << num(gbps.hi * 1.1) << "]\n"
       << plot_command(left)
       << "  unset key\n  set lmargin at screen 0.57\n  set rmargin at screen 0.97\n"
       << "  set title \"% of the read ceiling at the same level and thread count\" noenhanced\n"
       << "  set ylabel \"% of read ceiling\"\n  set yrange [0:" << num(pct_hi) << "]\n  set ytics auto\n"
       << plot_command(right) << "  unset multiplot\n";
  ReportFigure f;
  f.machine_id = m.id;
  f.kind = "threads";
  f.caption = "Thread scaling of " + m.label + ": decode_step per dtype at its largest context run at several thread "
              "counts (cache level in the legend), against the measured DRAM read ceiling at each thread count "
              "(left), and as % of the read ceiling at the row's level and thread count (right).";
  f.figure = {"threads_" + m.id, "Thread scaling, " + m.label, 1300, 620, data.str(), body.str()};
  return f;
}

}  // namespace

std::vector<ReportFigure> build_report_figures(const std::vector<MachineResults>& machines, double knee_drop) {
  // Shared ranges so figures of the same kind line up across machines.
  Range ai, gflops;
  for (const auto& m : machines) {
    const int t = m.roofline_threads();
    const auto peak = m.fma_peak(t);
    if (peak) gflops.add(*peak);
    for (const auto& [key, bw] : m.read_roof_gbps) {
      if (key.second == t && peak) ai.add(*peak / bw);  // ridge point
    }
    for (const ResultRow& r : m.summaries) {
      if (r.is_ceiling() || r.failed_validation()) continue;
      if (auto p = roofline_point(r.num(Col::bytes_read), r.num(Col::bytes_written), r.num(Col::flops),
                                  r.num(Col::ns_per_step))) {
        ai.add(p->ai_flop_per_byte);
        gflops.add(p->gflops);
      }
    }
  }
  bool any_roof = false;
  for (const auto& m : machines) any_roof = any_roof || !m.read_roof_gbps.empty();
  if (!ai.valid() && any_roof) {  // ceilings only: show roofs over typical intensities
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
  // The decode figures show what series_selection picks, at each machine's max thread count.
  struct Selection {
    int threads = 0;
    std::vector<SeriesPanel> llc, context;
    std::vector<ResultSeries> scaling;
  };
  std::vector<Selection> selections;
  Range ws, llc_gbps, ctx, ctx_gbps, threads, thread_gbps;
  double pct_hi = 100;
  for (const auto& m : machines) {
    Selection sel;
    sel.threads = max_decode_threads(m);
    sel.llc = llc_fit_panels(m, sel.threads);
    sel.context = context_panels(m, sel.threads);
    sel.scaling = thread_series(m);
    for (const auto& c : ceiling_lines(m, sel.threads)) {
      if (!sel.llc.empty()) llc_gbps.add(c.gbps);
      if (!sel.context.empty()) ctx_gbps.add(c.gbps);
    }
    for (const auto& p : sel.llc) {
      auto add = [&](const std::vector<const ResultRow*>& rows) {
        for (const ResultRow* r : rows) {
          ws.add(*r->num(Col::working_set_bytes));
          llc_gbps.add(*attained_gbps(*r));
        }
      };
      for (const auto& s : p.series) add(s.rows);
      for (const auto& rows : p.other_shapes) add(rows);
    }
    for (const auto& p : sel.context) {
      for (const auto& s : p.series) {
        for (const ResultRow* r : s.rows) {
          ctx.add(*r->num(Col::context));
          ctx_gbps.add(*attained_gbps(*r));
        }
      }
    }
    for (const auto& s : sel.scaling) {
      for (const ResultRow* r : s.rows) {
        const int t = static_cast<int>(r->num_or(Col::threads, 0));
        threads.add(t);
        thread_gbps.add(*attained_gbps(*r));
        if (auto pct = r->num(Col::pct_of_ceiling)) pct_hi = std::max(pct_hi, *pct);
        else if (auto roof = m.read_roof(r->str(Col::ws_level), t)) pct_hi = std::max(pct_hi, 100 * *attained_gbps(*r) / *roof);
      }
    }
    for (const auto& [key, bw] : m.read_roof_gbps) {
      if (key.first != "DRAM") continue;
      threads.add(key.second);
      thread_gbps.add(bw);
    }
    selections.push_back(std::move(sel));
  }
  std::vector<ReportFigure> out;
  auto keep = [&](ReportFigure f) {
    if (!f.kind.empty()) out.push_back(std::move(f));
  };
  for (std::size_t i = 0; i < machines.size(); ++i) {
    const auto& m = machines[i];
    const auto& sel = selections[i];
    if (ai.valid() && gflops.valid()) keep(roofline(m, ai, gflops));
    if (ws.valid() && llc_gbps.valid()) keep(llc_fit(m, sel.threads, sel.llc, ws, llc_gbps, knee_drop));
    if (ctx.valid() && ctx_gbps.valid()) keep(context_figure(m, sel.threads, sel.context, ctx, ctx_gbps));
    if (threads.valid() && threads.hi > threads.lo) keep(thread_figure(m, sel.scaling, threads, thread_gbps, pct_hi * 1.1));
  }
  return out;
}

}  // namespace kvb
