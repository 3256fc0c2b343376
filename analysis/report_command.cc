#include "analysis/report_command.h"

#include <algorithm>
#include <boost/program_options.hpp>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <optional>
#include <set>
#include <sstream>

#include "analysis/barrier_wait.h"
#include "analysis/ceiling_change.h"
#include "analysis/ceiling_table.h"
#include "analysis/command_line.h"
#include "analysis/efficiency_targets.h"
#include "analysis/gnuplot_figure.h"
#include "analysis/headline.h"
#include "analysis/huge_pages.h"
#include "analysis/input_error.h"
#include "analysis/knee_detection.h"
#include "analysis/machine_results.h"
#include "analysis/model_fit.h"
#include "analysis/peer_comparison.h"
#include "analysis/report_figures.h"
#include "analysis/result_series.h"
#include "analysis/result_table.h"
#include "analysis/run_ceilings.h"
#include "analysis/staged_output.h"
#include "analysis/statistics.h"
#include "analysis/step_breakdown.h"
#include "analysis/targets_csv.h"
#include "analysis/text_table.h"

#ifndef KVBENCH_SOURCE_MODELS_DIR
#define KVBENCH_SOURCE_MODELS_DIR ""
#endif

namespace kvb {
namespace po = boost::program_options;
namespace fs = std::filesystem;

namespace {

struct ReportOptions {
  std::vector<std::string> inputs;
  std::string out;
  std::string models_dir;
  bool models_dir_given = false;
  bool force = false;
  double knee_drop = kDefaultKneeDrop;
};

const char* kUsage = "usage: kvbench report <results.csv>... --out DIR [--force] [--models-dir DIR] [--knee-drop F]";

// Returns nullopt when --help was printed.
std::optional<ReportOptions> parse_options(int argc, char** argv) {
  ReportOptions o;
  po::options_description visible("kvbench report options");
  visible.add_options()("help,h", "show this help")(
      "out,o", po::value(&o.out)->required(), "output directory (must not exist or be empty, unless --force)")(
      "force", po::bool_switch(&o.force), "replace an existing output directory")(
      "models-dir", po::value(&o.models_dir), "model presets (*.ini); default configs/models, then the source tree's")(
      "knee-drop", po::value(&o.knee_drop)->default_value(kDefaultKneeDrop, "0.15"),
      "fractional bandwidth drop between neighbouring working sets that marks a knee");
  po::options_description all;
  all.add(visible).add_options()("input", po::value(&o.inputs));
  po::positional_options_description positional;
  positional.add("input", -1);
  const auto vm = parse_command_line(argc, argv, visible, all, positional, kUsage);
  if (!vm) return std::nullopt;
  o.models_dir_given = vm->count("models-dir") > 0;
  if (o.inputs.empty()) throw InputError(std::string("no input CSV given\n") + kUsage);
  if (!(o.knee_drop > 0 && o.knee_drop < 1)) throw InputError("--knee-drop must be between 0 and 1");
  return o;
}

std::vector<ModelPreset> find_presets(const ReportOptions& o, std::string* note) {
  if (o.models_dir_given) return load_model_presets(o.models_dir);
  for (const std::string& dir : {std::string("configs/models"), std::string(KVBENCH_SOURCE_MODELS_DIR)}) {
    std::error_code ec;
    if (!dir.empty() && fs::is_directory(dir, ec)) {
      *note = "Model presets from `" + dir + "`.";
      return load_model_presets(dir);
    }
  }
  *note = "No model preset directory found (pass --models-dir).";
  return {};
}

std::string opt_bytes(std::optional<double> b) { return b ? format_bytes(*b) : "n/a"; }

std::string md_escape(std::string s) {
  std::string out;
  for (char c : s) {
    if (c == '|' || c == '_' || c == '*') out += '\\';
    out += c;
  }
  return out;
}

std::optional<double> pct_of_roof(const MachineResults& m, const ResultRow& r) {
  const auto g = attained_gbps(r);
  const auto roof = m.read_roof(r.str(Col::ws_level), static_cast<int>(r.num_or(Col::threads, 0)));
  if (g && roof && *roof > 0) return 100 * *g / *roof;
  return r.num(Col::pct_of_ceiling);
}

void machines_section(std::ostream& md, const std::vector<MachineResults>& ms) {
  std::vector<std::string> header = {""};
  for (const auto& m : ms) header.push_back(m.id);
  TextTable t(header);
  auto row = [&](const std::string& name, auto value) {
    std::vector<std::string> r = {name};
    for (const auto& m : ms) r.push_back(value(m));
    t.add_row(r);
  };
  row("CPU", [](const MachineResults& m) { return m.cpu_model; });
  row("host", [](const MachineResults& m) { return m.host; });
  row("runs", [](const MachineResults& m) {
    std::string s;
    for (const auto& id : m.run_ids) s += (s.empty() ? "" : " ") + id;
    return s;
  });
  row("ISA", [](const MachineResults& m) { return m.isa; });
  row("compiler", [](const MachineResults& m) { return m.compiler; });
  row("kvbench", [](const MachineResults& m) { return m.kvbench_version; });
  row("L1d", [](const MachineResults& m) { return opt_bytes(m.l1d_bytes); });
  row("L2", [](const MachineResults& m) { return opt_bytes(m.l2_bytes); });
  row("L3", [](const MachineResults& m) { return opt_bytes(m.l3_bytes); });
  row("LLC (PUs used)", [](const MachineResults& m) {
    // A measured or given LLC (kvbench run --llc) says so, beside what hwloc said; where runs
    // used different ones, each with its number of runs, the machine's (the most runs') first.
    const auto llc = [](const MachineResults::Llc& l) {
      if (l.source.empty() || l.source == "hwloc") return opt_bytes(l.bytes);
      return opt_bytes(l.bytes) + " (" + l.source + "; hwloc " + opt_bytes(l.hwloc_bytes) + ")";
    };
    if (m.llcs.size() < 2) return m.llcs.empty() ? opt_bytes(m.llc_bytes) : llc(m.llcs.front());
    std::size_t runs = 0;
    for (const auto& l : m.llcs) runs += l.run_ids.size();
    std::string s;
    for (const auto* l : m.llcs_by_runs()) {
      s += (s.empty() ? "" : "; ") + llc(*l) + " in " + std::to_string(l->run_ids.size()) + " of " +
           std::to_string(runs) + " runs";
    }
    return s;
  });
  md << "## Machines\n\n" << t.markdown() << "\n";
}

// A cell names its lowest run when that run's best is below this share of the best run's.
constexpr double kDriftShown = 0.9;

void ceilings_section(std::ostream& md, const std::vector<MachineResults>& ms) {
  std::vector<CeilingPivot> pivots;
  bool barrier = false, barrier_end = false;
  for (const auto& m : ms) {
    pivots.push_back(pivot_ceilings(m));
    for (const auto& row : pivots.back().rows) {
      barrier = barrier || row.lower_is_better;
      barrier_end = barrier_end || row.benchmark == "ceiling_barrier_end";
    }
  }
  md << "## Measured ceilings\n\nBest median over the buffer sizes of each level and over the runs, per thread "
        "count. GB/s (decimal) for bandwidth ceilings, GFLOP/s for `ceiling_fma`. Where the machine's runs "
        "differ by more than 10%, the cell also gives the lowest run's best and the number of runs: "
        "percentages elsewhere use each row's own run.";
  if (barrier) {
    md << " `ceiling_barrier` is the time of one crossing of the barrier a decode step ends each layer with, "
          "all workers crossing back to back: the least ns over the runs, and the slowest run where they "
          "differ by more than 10%.";
    if (barrier_end) md << " `ceiling_barrier_end` is the same crossing after the run's last benchmark.";
  }
  md << "\n\n";
  bool any = false;
  for (std::size_t i = 0; i < ms.size(); ++i) {
    const auto& m = ms[i];
    const CeilingPivot& p = pivots[i];
    if (p.rows.empty()) continue;
    any = true;
    std::vector<std::string> header = {"ceiling", "level", "unit"};
    for (int t : p.threads) header.push_back(std::to_string(t) + (t == 1 ? " thread" : " threads"));
    TextTable t(header);
    bool slowed_fma = false;
    for (const auto& row : p.rows) {
      std::vector<std::string> cells = {
          md_escape(row.benchmark), row.level.empty() ? "-" : row.level,
          row.benchmark == "ceiling_fma" ? "GFLOP/s" : row.lower_is_better ? "ns per crossing" : "GB/s"};
      for (std::size_t i = 0; i < row.values.size(); ++i) {
        const auto& v = row.values[i];
        const auto& low = row.lowest_run[i];
        std::string cell = v ? format_number(*v, 4) : "";
        if (v && low && row.runs[i] > 1 && (row.lower_is_better ? kDriftShown * *low > *v : *low < kDriftShown * *v)) {
          cell += std::string(row.lower_is_better ? " (slowest run " : " (lowest run ") + format_number(*low, 4) +
                  ", " + std::to_string(row.runs[i]) + " runs)";
        }
        if (const auto slow = row.benchmark == "ceiling_fma" ? m.fma_peak_slowest.find(p.threads[i])
                                                                : m.fma_peak_slowest.end();
            v && slow != m.fma_peak_slowest.end() && slow->second.pct < 100 * (1 - kCeilingDriftFlag)) {
          cell += " (a worker at " + std::to_string(std::lround(slow->second.pct)) + "%" +
                  (slow->second.pu ? ", PU " + std::to_string(*slow->second.pu) : "") + ")";
          slowed_fma = true;
        }
        cells.push_back(cell);
      }
      t.add_row(cells);
    }
    md << "### " << m.id << ": " << md_escape(m.label) << "\n\n" << t.markdown() << "\n";
    if (slowed_fma) {
      md << "A `ceiling_fma` cell with \"a worker at N%\" was the best burst at that thread count, and its slowest "
            "worker ran at N% of its fastest's rate (on that PU): the ceiling of a slowed core. Rows whose core "
            "brackets match it may have run with a worker slowed as well; only their own bursts' workers say so "
            "(\"a worker at N% of the fastest's FMA rate\").\n\n";
    }
    // Since 2026-12-06d a read ceiling is the fastest of several loops: say which set this machine's.
    if (const ReadLoopSplit loops = read_loop_split(m); loops.rows > 0) {
      std::vector<std::string> timed = {"plain loads"};
      if (loops.window.rows > 0) {
        timed.emplace_back("the same with the attention kernels' 4 KB software prefetch window");
      }
      if (loops.two_streams.rows > 0) {
        timed.emplace_back("the plain loads over two streams at once, as the kernels read K and V");
      }
      if (loops.four_streams.rows > 0) timed.emplace_back("the same over four streams");
      md << "`ceiling_read` is the "
         << (timed.size() == 2 ? "faster of two" : timed.size() == 3 ? "fastest of three" : "fastest of four")
         << " loops timed in turn: ";
      for (std::size_t i = 0; i < timed.size(); ++i)
        md << (i == 0 ? "" : i + 1 == timed.size() ? ", and " : ", ") << timed[i];
      md << ".";
      // " The window set 1 of this machine's 2 `ceiling_read` rows (DRAM at 2 threads); window / plain ..."
      auto say = [&](const char* name, const ReadLoopSplit::Loop& loop) {
        if (loop.rows == 0) return;
        std::vector<double> ratios = loop.over_plain;
        std::sort(ratios.begin(), ratios.end());
        int won = 0;
        std::string where;
        for (const auto& [at, count] : loop.won) {
          won += count;
          where += std::string(where.empty() ? "" : ", ") + at.second + " at " + std::to_string(at.first) +
                   (at.first == 1 ? " thread" : " threads") + (count > 1 ? " (" + std::to_string(count) + ")" : "");
        }
        md << " The " << name << " set " << won << " of this machine's " << loop.rows << " `ceiling_read` rows"
           << (where.empty() ? "" : " (" + where + ")") << "; " << name << " / plain "
           << format_number(ratios.front(), 3) << "-" << format_number(ratios.back(), 3) << ", median "
           << format_number(*median(ratios), 3) << ".";
      };
      say("window", loops.window);
      say("two streams", loops.two_streams);
      say("four streams", loops.four_streams);
      md << "\n\n";
    }
    // A run that measured the FMA ceiling at both ends takes the faster as its roof; ends far apart
    // say its cores ran slower at one of them.
    const std::vector<RunCeilings::CeilingEnds> fma_ends = RunCeilings(m).fma_ends();
    if (!fma_ends.empty()) {
      std::string apart_ends;
      for (const auto& e : fma_ends) {
        if (std::max(e.start, e.end) / std::min(e.start, e.end) - 1 <= kCeilingDriftFlag) continue;
        apart_ends += std::string(apart_ends.empty() ? "" : ", ") + "`" + e.run_id + "` at " +
                      std::to_string(e.threads) + (e.threads == 1 ? " thread (" : " threads (") +
                      format_number(e.start, 4) + " -> " + format_number(e.end, 4) + ")";
      }
      md << "`ceiling_fma` is each run's faster end: its bursts at the start, or again after its last benchmark "
            "(`ceiling_fma_end`), and rows are judged against that. ";
      if (apart_ends.empty()) {
        md << "None of its " << fma_ends.size() << " (run, thread count) pair(s) measured at both ends lay more than "
           << std::lround(100 * kCeilingDriftFlag) << "% apart.\n\n";
      } else {
        md << "Ends more than " << std::lround(100 * kCeilingDriftFlag)
           << "% apart (start -> end, GFLOP/s), a core slowed at one of them: " << apart_ends << ".\n\n";
      }
    }
    // Runs whose crossings are far apart ran on different vCPU placements (ceiling_change.h): the
    // least and the most of a thread count's crossings, at the runs' starts and ends together.
    std::string apart;
    for (std::size_t c = 0; c < p.threads.size(); ++c) {
      std::optional<double> least, slowest;
      for (const auto& row : p.rows) {
        if (!row.lower_is_better || !row.values[c] || !row.lowest_run[c]) continue;
        least = least ? std::min(*least, *row.values[c]) : *row.values[c];
        slowest = slowest ? std::max(*slowest, *row.lowest_run[c]) : *row.lowest_run[c];
      }
      if (p.threads[c] < 2 || !least || !slowest || !crossings_apart(*least, *slowest)) continue;
      apart += std::string(apart.empty() ? "" : ", ") + std::to_string(p.threads[c]) + " threads (" +
               format_number(*least, 4) + " and " + format_number(*slowest, 4) + " ns)";
    }
    if (!apart.empty()) {
      md << "Its runs crossed the per-layer barrier more than " << format_number(kBarrierMovedRatio, 2)
         << "x apart at " << apart
         << ": the host placed the vCPUs differently between them or during one, so its multi-threaded rows of "
            "different runs compare only within one placement (`kvbench compare` notes such rows).";
      // Which runs moved while their rows ran: their crossing at the end is far from the start's.
      std::string midway;
      std::set<std::string> both_ends;  // runs
      for (const auto& e : RunCeilings(m).crossing_ends()) {
        if (e.threads < 2) continue;
        both_ends.insert(e.run_id);
        if (!crossings_apart(e.start, e.end)) continue;
        midway += std::string(midway.empty() ? "" : ", ") + "`" + e.run_id + "` at " +
                  std::to_string(e.threads) + " threads (" + format_number(e.start, 4) + " -> " +
                  format_number(e.end, 4) + " ns)";
      }
      if (!midway.empty()) {
        md << " Some moved while their rows ran (`ceiling_barrier` -> `ceiling_barrier_end`): " << midway << ".";
      } else if (!both_ends.empty()) {
        md << " None of the " << both_ends.size()
           << " run(s) that measured it at both ends moved while its rows ran (`ceiling_barrier_end`).";
      }
      md << "\n\n";
    }
  }
  if (!any) md << "No ceiling rows in the input: roofs and % of ceiling are not available.\n\n";
}

std::string headline_value(const HeadlinePoint& p) { return p.gbps ? format_number(*p.gbps, 4) : "not run"; }

// How far a measured row can be trusted, as the tables print it after the row's value: its own
// ceiling moved while it ran, its workers' cores ran slow, the host moved their vCPUs, they
// waited at the barriers for one of them, or its buffer was only partly on huge pages. "" for a
// row with none of these.
std::string trust_notes(const ResultRow& r, const RunCeilings& ceilings) {
  std::string s;
  for (const std::string& note :
       {ceiling_moved_note(r), ceilings.core_slowed_note(r),
        barrier_moved_note(r.num(Col::barrier_before_ns), r.num(Col::barrier_after_ns)), barrier_wait_note(r),
        huge_page_note(r)}) {
    if (!note.empty()) s += " (" + note + ")";
  }
  return s;
}

// The cell's percentage with its row's trust notes: the headline is the table people quote.
std::string headline_pct(const HeadlinePoint& p, const RunCeilings& ceilings) {
  if (!p.row) return "";
  return (p.pct_of_ceiling ? format_number(*p.pct_of_ceiling, 3) + "%" : "no ceiling") + trust_notes(*p.row, ceilings);
}

// The cell's shape and context, and the file its row came from (inputs can hold one
// configuration several times).
std::string headline_where(const std::string& name, const HeadlinePoint& p) {
  if (!p.row) return "";
  return name + " " + shape_label(*p.row) + " ctx " + p.row->str(Col::context) +
         (p.row->str(Col::cache_state) == "warm" ? "" : " " + p.row->str(Col::cache_state)) + ", " +
         md_escape(fs::path(p.row->file).filename().string());
}

// "cpu0: <label>; cpu1: <label>.": what the machine columns of the side-by-side tables name.
std::string machine_legend(const std::vector<MachineResults>& ms) {
  std::string legend;
  for (const MachineResults& m : ms) legend += (legend.empty() ? "" : "; ") + m.id + ": " + md_escape(m.label);
  return legend + ".\n";
}

// The machines' headlines side by side: a row per dtype and regime, a column per machine, each cell
// GB/s and % of the row's own ceiling (and the thread count where it is the machine's most). A
// cell whose row carries notes is marked; the machine's own table below prints them.
std::string headline_across_machines(const std::vector<MachineResults>& ms, const std::vector<Headline>& hs) {
  std::vector<std::string> dtypes;
  for (const Headline& h : hs) {
    for (const HeadlineRow& r : h.rows) {
      if (std::find(dtypes.begin(), dtypes.end(), r.dtype) == dtypes.end()) dtypes.push_back(r.dtype);
    }
  }
  if (dtypes.empty()) return "";
  std::vector<std::string> header = {"dtype", "KV cache in"};
  for (const MachineResults& m : ms) header.push_back(m.id);
  TextTable t(header);
  bool marked = false;
  const struct {
    const char* name;
    HeadlinePoint HeadlineRow::*point;
    bool most_threads;
  } regimes[] = {{"DRAM, 1 thread", &HeadlineRow::dram_one_thread, false},
                 {"DRAM, most threads", &HeadlineRow::dram_max_threads, true},
                 {"LLC, most threads", &HeadlineRow::llc_max_threads, true}};
  std::map<std::pair<std::string, int>, std::vector<std::string>> cells;  // (dtype, regime) -> machine -> cell
  for (std::size_t i = 0; i < ms.size(); ++i) {
    const RunCeilings ceilings(ms[i]);
    for (const std::string& dtype : dtypes) {
      const HeadlineRow* r = nullptr;
      for (const HeadlineRow& candidate : hs[i].rows) {
        if (candidate.dtype == dtype) r = &candidate;
      }
      for (int k = 0; k < 3; ++k) {
        const HeadlinePoint* p = r ? &(r->*regimes[k].point) : nullptr;
        std::string cell = "-";
        if (p && p->row && p->gbps) {
          cell = format_number(*p->gbps, 4) + " GB/s";
          if (regimes[k].most_threads) cell += " at " + std::to_string(hs[i].max_threads) + "T";
          cell += p->pct_of_ceiling ? ", " + format_number(*p->pct_of_ceiling, 3) + "%" : ", no ceiling";
          if (!trust_notes(*p->row, ceilings).empty()) {
            cell += " (notes)";
            marked = true;
          }
        }
        cells[{dtype, k}].push_back(cell);
      }
    }
  }
  for (const std::string& dtype : dtypes) {
    for (int k = 0; k < 3; ++k) {
      std::vector<std::string> row = {dtype, regimes[k].name};
      for (const std::string& cell : cells[{dtype, k}]) row.push_back(cell);
      t.add_row(row);
    }
  }
  return t.markdown() + "\n" +
         (marked ? "(notes): the row ran with its ceiling moving, its cores slow or its workers waiting at the "
                   "barriers; the machine's table below says which.\n\n"
                 : "") +
         machine_legend(ms);
}

void headline_section(std::ostream& md, const std::vector<MachineResults>& ms) {
  md << "## Headline\n\n`decode_step` bandwidth where the KV cache lives in DRAM (at 1 thread and at the most "
        "threads run) and in the LLC (most threads), as GB/s and % of the read ceiling its own run measured at that level "
        "and thread count. Each cell is the valid row with the largest working set at that level (the most "
        "memory-bound case measured; shape, context and file in the last column; a configuration run more than once "
        "shows a row held against its own bracketed ceiling before one that is not, then the latest run's), among shapes with at most "
        << kMaxStreamingGroupSize << " query heads per KV head where the dtype ran any (larger groups are compute-bound: a cell without a "
           "streaming row is empty). kvbench/peer = peer time / "
        "kvbench time for peer rows of the same dtype, shape, context and threads (> 1: kvbench faster). A "
        "percentage carries its row's notes, as in the tables below: \"ceiling moved\", \"core at N% of its FMA "
        "ceiling\", \"barrier crossing moved\", \"workers waited N% at barriers\", \"N% on huge pages\".\n\n";
  std::vector<Headline> headlines;
  for (const auto& m : ms) headlines.push_back(build_headline(m));
  if (ms.size() > 1) {
    if (const std::string across = headline_across_machines(ms, headlines); !across.empty()) {
      md << "### Across machines\n\nThe cells of the machines' tables below side by side (GB/s, % of the ceiling, "
            "and the thread count where it is the machine's most).\n\n"
         << across << "\n";
    }
  }
  bool any = false;
  for (std::size_t i = 0; i < ms.size(); ++i) {
    const MachineResults& m = ms[i];
    const Headline& h = headlines[i];
    if (h.rows.empty()) continue;
    any = true;
    const RunCeilings ceilings(m);
    const std::string nt = std::to_string(h.max_threads) + "T";
    TextTable t({"dtype", "DRAM 1T GB/s", "% of DRAM ceiling", "DRAM " + nt + " GB/s", "% of DRAM ceiling",
                 "LLC " + nt + " GB/s", "% of L3 ceiling", "kvbench/peer", "rows used"});
    for (const HeadlineRow& r : h.rows) {
      std::string peers, unmatched, invalid;
      std::optional<double> invalid_err;  // the failed peer rows' largest max_rel_err
      for (const PeerComparison& p : r.peers) {
        const std::string where = "ctx " + p.peer->str(Col::context) + " " + p.peer->str(Col::threads) + "T";
        if (const auto speed = p.valid_speed()) {
          peers += (peers.empty() ? "" : "; ") + format_number(*speed, 3) + "x at " + where;
        } else if (p.peer->failed_validation()) {
          invalid += (invalid.empty() ? "" : ", ") + where;
          if (const auto e = p.peer->num(Col::max_rel_err)) invalid_err = std::max(invalid_err.value_or(*e), *e);
        } else {
          unmatched += (unmatched.empty() ? "" : ", ") + where;
        }
      }
      if (!unmatched.empty()) peers += (peers.empty() ? "" : "; ") + std::string("no kvbench row at ") + unmatched;
      if (!invalid.empty()) peers += (peers.empty() ? "" : "; ") + std::string("peer output failed validation at ") + invalid +
                                    (invalid_err ? " (max error " + format_number(*invalid_err * 100, 3) + "%)" : "");
      std::string where;
      for (const auto& w : {headline_where("DRAM 1T:", r.dram_one_thread), headline_where("DRAM " + nt + ":", r.dram_max_threads),
                            headline_where("LLC " + nt + ":", r.llc_max_threads)}) {
        if (!w.empty()) where += (where.empty() ? "" : "; ") + w;
      }
      t.add_row({r.dtype, headline_value(r.dram_one_thread), headline_pct(r.dram_one_thread, ceilings),
                 headline_value(r.dram_max_threads), headline_pct(r.dram_max_threads, ceilings),
                 headline_value(r.llc_max_threads), headline_pct(r.llc_max_threads, ceilings),
                 peers.empty() ? "no peer rows" : peers, where});
    }
    md << "### " << m.id << ": " << md_escape(m.label) << "\n\n" << t.markdown() << "\n";
  }
  if (!any) md << "No decode\\_step rows in the input.\n\n";
}

std::string fixed(double value, int decimals) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*f", decimals, value);
  return buf;
}

std::string target_value(TargetKind kind, double v, int extra_decimals = 0) {
  return target_is_percentage(kind) ? fixed(v, 1 + extra_decimals) + "%" : fixed(v, 2 + extra_decimals) + "x";
}

// A measured value as target_value writes it, with up to two more digits where that would print
// a value on the wrong side of its threshold as one that meets it (89.98% does not meet 90.0%).
std::string measured_value(TargetKind kind, double v) {
  const TargetThreshold t = target_threshold(kind);
  int extra = 0;
  if (t.value && !t.met_by(v)) {
    const int base = target_is_percentage(kind) ? 1 : 2;
    while (extra < 2 && t.met_by(std::stod(fixed(v, base + extra)))) ++extra;
  }
  return target_value(kind, v, extra);
}

std::string target_column(const TargetLine& l, const MachineResults& m) {
  std::string what;
  switch (l.kind) {
    case TargetKind::kDramStreaming: what = "% of DRAM read ceiling (ws >= 4x LLC)"; break;
    case TargetKind::kLlcResident: what = std::string("% of ") + (m.l3_bytes ? "L3" : "L2") + " read ceiling"; break;
    case TargetKind::kGqa: what = "time at G q heads per KV head / at G = 1"; break;
    case TargetKind::kAppend: what = "time / append\\_memcpy time"; break;
    case TargetKind::kPrefill: what = "% of copy ceiling (ceiling\\_copy)"; break;
    case TargetKind::kPrefillStores: what = "written GB/s as % of streaming-store ceiling (ceiling\\_write\\_nt)"; break;
    case TargetKind::kPeers: what = "kvbench GB/s / peer GB/s"; break;
  }
  return target_name(l.kind) + ": " + what;
}

template <typename T>
std::string comma_list(const std::vector<T>& values) {
  std::ostringstream s;
  for (std::size_t i = 0; i < values.size(); ++i) s << (i ? ", " : "") << values[i];
  return s.str();
}

// The worst row's configuration beyond the line's benchmark, dtype and threads.
std::string worst_case(const TargetLine& l, const RunCeilings& ceilings) {
  const ResultRow* r = l.worst_row;
  if (!r) return "";
  std::string s = shape_label(*r) + " ctx " + r->str(Col::context);
  if (!r->str(Col::window).empty()) s += " W" + r->str(Col::window);
  if (r->str(Col::layout) != "head_major" && !r->str(Col::layout).empty()) s += " " + md_escape(r->str(Col::layout));
  if (r->str(Col::cache_state) != "warm") s += " " + r->str(Col::cache_state);
  if (l.kind == TargetKind::kPeers && l.worst_partner) s += " vs kvbench " + md_escape(l.worst_row->str(Col::benchmark));
  if (const std::string moved = ceiling_moved_note(*r); !moved.empty()) s += " (" + moved + ")";
  if (l.worst_partner) {
    if (const std::string apart = pair_ceilings_note(*r, *l.worst_partner); !apart.empty()) s += " (" + apart + ")";
  }
  if (const std::string slowed = ceilings.core_slowed_note(*r); !slowed.empty()) s += " (" + slowed + ")";
  if (const std::string huge = huge_page_note(*r); !huge.empty()) s += " (" + huge + ")";
  if (l.worst_partner) {
    if (const std::string slowed = ceilings.core_slowed_note(*l.worst_partner); !slowed.empty()) {
      s += " (its partner's " + slowed + ")";
    }
  }
  if (const std::string waited = barrier_wait_note(*r); !waited.empty()) s += " (" + waited + ")";
  if (l.worst_partner) {
    if (const std::string waited = barrier_wait_note(*l.worst_partner); !waited.empty()) s += " (its partner's " + waited + ")";
  }
  return s;
}

std::string target_configuration(const TargetLine& l, const RunCeilings& ceilings) {
  std::vector<std::string> dtypes;
  for (const auto& d : l.dtypes) dtypes.push_back(md_escape(d));
  std::string s = md_escape(l.benchmark) + " " + comma_list(dtypes) +
                  (l.threads.size() == 1 ? " " + std::to_string(l.threads[0]) + "T"
                                         : " at " + comma_list(l.threads) + " threads");
  if (l.kind == TargetKind::kGqa) s += ", G = " + std::to_string(l.group_size) + (l.group_size == 8 ? "" : " (largest run <= 8)");
  const std::string worst = worst_case(l, ceilings);
  if (!worst.empty()) s += (l.measured > 1 ? "; worst: " : "; ") + worst;
  return s;
}

std::string target_measured(const TargetLine& l) {
  if (!l.worst) return "-";
  std::string s = measured_value(l.kind, *l.worst);
  if (l.measured > 1) {
    s += std::string(" (") + (l.kind == TargetKind::kPeers ? "lowest" : "worst") + " of " + std::to_string(l.measured) +
         "; " + (l.kind == TargetKind::kPeers ? "highest " : "best ") + target_value(l.kind, *l.best) + ")";
  }
  if (l.worst_fastest) {
    s += "; fastest repetition" + std::string(l.with_fastest > 1 ? "s" : "") + " " +
         (l.with_fastest > 1 ? ">= " : "") + target_value(l.kind, *l.worst_fastest);
    if (l.met_fastest < l.with_fastest) {
      s += " (" + std::to_string(l.with_fastest - l.met_fastest) + " of " + std::to_string(l.with_fastest) + " below)";
    }
  }
  return s;
}

std::string target_threshold_text(TargetKind kind) {
  const TargetThreshold t = target_threshold(kind);
  if (!t.value) return "none";
  return std::string(t.at_least ? ">= " : "<= ") + target_value(kind, *t.value);
}

std::string verdict_word(Verdict v) {
  switch (v) {
    case Verdict::kMet: return "met";
    case Verdict::kNotMet: return "**not met**";
    case Verdict::kUnsettled: return "**unsettled**";
    case Verdict::kNotMeasured: return "not measured";
    case Verdict::kInformational: return "informational";
  }
  return "";
}

std::string target_verdict(const TargetLine& l) {
  std::string s = verdict_word(l.verdict);
  switch (l.verdict) {
    case Verdict::kNotMet:
      if (l.measured > 0 && l.met < l.measured) {
        s += " (" + std::to_string(l.measured - l.met) + " of " + std::to_string(l.measured) + " rows)";
      }
      break;
    case Verdict::kUnsettled:
      s += l.met == l.measured ? " (every row meets it, but not every row can be trusted)"
                               : " (" + std::to_string(l.measured - l.met) + " of " + std::to_string(l.measured) +
                                     " rows miss it, each with " +
                                     (l.short_of_huge_pages == 0 ? "a core that ran slow"
                                      : l.core_slowed == 0       ? "a buffer only partly on huge pages"
                                                                 : "a core that ran slow or a buffer only partly on "
                                                                   "huge pages") +
                                     ")";
      break;
    default: break;
  }
  if (l.invalid > 0) s += "; " + std::to_string(l.invalid) + " row" + (l.invalid == 1 ? "" : "s") + " failed validation";
  if (l.ceiling_moved > 0) {
    s += "; " + std::to_string(l.ceiling_moved) + " row" + (l.ceiling_moved == 1 ? "'s" : "s'") +
         " ceiling moved > " + format_number(100 * kCeilingDriftFlag, 2) + "% while measured";
  }
  if (l.ceilings_apart > 0) {
    s += "; " + std::to_string(l.ceilings_apart) + " of " + std::to_string(l.measured) + " pair" +
         (l.measured == 1 ? "" : "s") + " ran against ceilings > " + format_number(100 * kCeilingDriftFlag, 2) +
         "% apart";
  }
  if (l.ceiling_beaten > 0) {
    const bool one = l.ceiling_beaten == 1;
    s += "; " + std::to_string(l.ceiling_beaten) + " of " + std::to_string(l.measured) + " row" +
         (l.measured == 1 ? "" : "s") + " above " + format_number(100 * (1 + kCeilingDriftFlag), 3) + "% of " +
         (one ? "its" : "their") + " own ceiling, which did not bound " + (one ? "it" : "them");
  }
  if (l.core_slowed > 0) {
    const bool pairs = l.worst_partner != nullptr;
    s += "; " + std::to_string(l.core_slowed) + " of " + std::to_string(l.measured) + (pairs ? " pair" : " row") +
         (l.measured == 1 ? "" : "s") + (pairs ? " with a row" : "") + " whose core ran more than " +
         format_number(100 * kCeilingDriftFlag, 2) + "% below its run's usual FMA rate or " +
         format_number(100 * kCoreStateFlag, 2) + "% below its FMA ceiling";
  }
  if (l.short_of_huge_pages > 0) {
    const bool pairs = l.worst_partner != nullptr;
    s += "; " + std::to_string(l.short_of_huge_pages) + " of " + std::to_string(l.measured) +
         (pairs ? " pair" : " row") + (l.measured == 1 ? "" : "s") + (pairs ? " with a buffer" : "") +
         " only partly on huge pages (their time includes TLB misses)";
  }
  if (l.beyond_peak > 0 && l.peak_bound) {
    s += "; " + std::to_string(l.beyond_peak) + " of " + std::to_string(l.measured) + " row" +
         (l.measured == 1 ? "" : "s") + " out of reach even at the FP32 FMA peak (there the least favourable " +
         "would be at " + target_value(l.kind, *l.peak_bound) + ")";
  }
  if (l.beyond_barrier > 0 && l.barrier_bound) {
    s += "; " + std::to_string(l.beyond_barrier) + " of " + std::to_string(l.measured) + " row" +
         (l.measured == 1 ? "" : "s") + " out of reach with one barrier crossing per layer (there the least " +
         "favourable would be at " + target_value(l.kind, *l.barrier_bound) + ")";
  }
  if (l.unmeasured > 0) {
    s += (l.verdict == Verdict::kNotMeasured ? ": " : "; ") + std::to_string(l.unmeasured) + " row" +
         (l.unmeasured == 1 ? "" : "s") + " without " + md_escape(l.missing);
  }
  return s;
}

// An at-a-glance row's first cells (target, kernel with G for GQA, dtype) for a line of one dtype
// and thread count with a value; empty for lines merged over dtypes or threads (nothing measured),
// which stay in the full tables only.
std::vector<std::string> glance_row(const TargetLine& l) {
  if (l.dtypes.size() != 1 || l.threads.size() != 1 || !l.worst) return {};
  std::string kernel = md_escape(l.benchmark);
  if (l.kind == TargetKind::kGqa) kernel += ", G = " + std::to_string(l.group_size);
  return {target_name(l.kind), kernel, md_escape(l.dtypes[0])};
}

// The lines at a glance: one row per target, kernel, dtype (GQA: and G), one column per thread
// count, each cell the line's worst value and its verdict.
std::string targets_at_a_glance(const std::vector<TargetLine>& lines) {
  std::set<int> thread_counts;
  std::vector<std::string> order;
  std::map<std::string, std::vector<std::string>> keys;     // row key -> target, kernel, dtype
  std::map<std::string, std::map<int, std::string>> cells;  // row key -> threads -> cell
  std::map<std::string, std::map<int, Verdict>> verdicts;    // row key -> threads -> its verdict
  for (const TargetLine& l : lines) {
    const std::vector<std::string> cells_before = glance_row(l);
    if (cells_before.empty()) continue;
    const std::string key = cells_before[0] + "|" + cells_before[1] + "|" + cells_before[2];
    if (keys.emplace(key, cells_before).second) order.push_back(key);
    cells[key][l.threads[0]] = measured_value(l.kind, *l.worst) +
                               (l.verdict == Verdict::kInformational ? "" : " " + verdict_word(l.verdict));
    verdicts[key][l.threads[0]] = l.verdict;
    thread_counts.insert(l.threads[0]);
  }
  if (order.empty()) return "";
  std::vector<std::string> header = {"target", "kernel", "dtype"};
  for (int t : thread_counts) header.push_back(std::to_string(t) + "T");
  TextTable t(header);
  for (const std::string& key : order) {
    std::vector<std::string> row = keys[key];
    for (int threads : thread_counts) row.push_back(cells[key].count(threads) ? cells[key][threads] : "-");
    t.add_row(row);
  }
  // The tally: how much of the matrix this run can vouch for. Two runs of one build are told apart
  // by it first (a run on slowed cores leaves more cells unsettled), and a reference set is
  // replaced only by a rerun that leaves no more cells unsettled (results/README.md).
  std::map<Verdict, int> tally;
  for (const auto& [key, by_threads] : verdicts) {
    for (const auto& [threads, v] : by_threads) ++tally[v];
  }
  const int judged = tally[Verdict::kMet] + tally[Verdict::kNotMet] + tally[Verdict::kUnsettled];
  std::string summary = t.markdown();
  if (judged > 0) {
    summary += "\nOf the " + std::to_string(judged) + " cells with a threshold: " + std::to_string(tally[Verdict::kMet]) +
               " met, " + std::to_string(tally[Verdict::kNotMet]) + " not met, " +
               std::to_string(tally[Verdict::kUnsettled]) + " unsettled.\n";
  }
  return summary;
}

// "1T, 2T": thread counts as the at-a-glance columns name them.
std::string thread_list(const std::vector<int>& threads) {
  std::string s;
  for (int t : threads) s += (s.empty() ? "" : ", ") + std::to_string(t) + "T";
  return s;
}

// The lines at a glance of several machines side by side: one row per target, kernel, dtype (GQA:
// and G), one column per machine. A cell is the machine's worst row over its thread counts and
// where it ran, then the thread counts by verdict: what a reader comparing CPUs on the targets
// wants in one table; each machine's own tables below have the rows and notes.
std::string targets_across_machines(const std::vector<MachineResults>& ms,
                                    const std::vector<EfficiencyTargets>& targets) {
  struct Point {
    int threads = 0;
    double worst = 0;
    Verdict verdict = Verdict::kNotMeasured;
  };
  std::vector<std::string> order;
  std::map<std::string, std::vector<std::string>> keys;              // row key -> target, kernel, dtype
  std::map<std::string, const TargetLine*> first;                     // row key -> a line of it
  std::map<std::string, std::map<std::size_t, std::vector<Point>>> points;  // row key -> machine -> lines
  for (std::size_t i = 0; i < ms.size(); ++i) {
    for (const TargetLine& l : targets[i].lines) {
      const std::vector<std::string> cells_before = glance_row(l);
      if (cells_before.empty()) continue;
      const std::string key = cells_before[0] + "|" + cells_before[1] + "|" + cells_before[2];
      if (keys.emplace(key, cells_before).second) {
        first[key] = &l;
        order.push_back(key);
      }
      points[key][i].push_back({l.threads[0], *l.worst, l.verdict});
    }
  }
  if (order.empty()) return "";
  std::stable_sort(order.begin(), order.end(),
                   [&](const std::string& a, const std::string& b) { return target_row_before(*first[a], *first[b]); });
  std::vector<std::string> header = {"target", "kernel", "dtype"};
  for (const MachineResults& m : ms) header.push_back(m.id);
  TextTable t(header);
  for (const std::string& key : order) {
    const TargetKind kind = first[key]->kind;
    const TargetThreshold threshold = target_threshold(kind);
    std::vector<std::string> row = keys[key];
    for (std::size_t i = 0; i < ms.size(); ++i) {
      auto found = points[key].find(i);
      if (found == points[key].end()) {
        row.push_back("-");
        continue;
      }
      std::vector<Point> ps = found->second;
      std::sort(ps.begin(), ps.end(), [](const Point& a, const Point& b) { return a.threads < b.threads; });
      const Point* worst = &ps.front();
      for (const Point& p : ps) {
        if (threshold.at_least ? p.worst < worst->worst : p.worst > worst->worst) worst = &p;
      }
      std::string cell = measured_value(kind, worst->worst) + " at " + std::to_string(worst->threads) + "T";
      std::vector<int> met, unsettled, missed;
      for (const Point& p : ps) {
        if (p.verdict == Verdict::kMet) met.push_back(p.threads);
        if (p.verdict == Verdict::kUnsettled) unsettled.push_back(p.threads);
        if (p.verdict == Verdict::kNotMet) missed.push_back(p.threads);
      }
      if (met.size() == ps.size()) {
        cell += ": met";
      } else if (missed.size() == ps.size()) {
        cell += ": " + verdict_word(Verdict::kNotMet);
      } else if (!met.empty() || !unsettled.empty() || !missed.empty()) {
        std::string parts;
        for (const auto& [verdict, threads] : {std::pair{Verdict::kMet, &met}, std::pair{Verdict::kUnsettled, &unsettled},
                                               std::pair{Verdict::kNotMet, &missed}}) {
          if (threads->empty()) continue;
          parts += (parts.empty() ? "" : "; ") + verdict_word(verdict) + " at " + thread_list(*threads);
        }
        cell += ": " + parts;
      }
      row.push_back(cell);
    }
    t.add_row(row);
  }
  return t.markdown() + "\n" + machine_legend(ms);
}

void efficiency_section(std::ostream& md, const std::vector<MachineResults>& ms,
                        const std::vector<EfficiencyTargets>& all_targets) {
  md << "## Efficiency against targets\n\nOne line per target, kernel, dtype and thread count (GQA: and G), pooling "
        "every shape, context, cache state and run of the median rows: measured = the worst row (its shape and "
        "context in the configuration column), with the best and the number of rows; met only if every row meets "
        "the threshold. How rows are held, and what their notes mean:\n\n"
        "- **Yardsticks.** Percentages are of the ceiling measured in the row's own run (same run, threads, "
        "pinning and "
        "level); ratios pair rows of one run (GQA: same configuration but q\\_heads; append: same configuration, append\\_streaming rows (non-temporal stores) held to the same memcpy on their own lines; rows of cache\\_state fresh, which write a new position every step, make their own lines: \"append (fresh, DRAM)\" where the cache is larger than the LLC (ws\\_level DRAM: the new slot comes from memory, as in a long decode), \"append (fresh, in cache)\" where it fits).\n"
        "- **Missing rows.** Targets without rows are left out; lines whose rows lack their ceiling or partner say not measured, "
        "merged over dtypes and threads.\n- **Validation.** A row that failed validation makes its line not met.\n"
        "- **Moving ceilings.** A row run with --ceiling-bracket is held against its own ceiling (the larger of "
        "the one measured right before its first "
        "and right after its last repetition); where the two differ by more than 10% it says \"ceiling moved\" "
        "(after vs before); where the two rows of a ratio ran against own ceilings more than 10% apart, the "
        "line counts those pairs and the worst one names both ceilings: the ratio then compares the machine in "
        "two states. Such pairs, and DRAM or LLC rows above 110% of their own read ceiling (which then did not "
        "bound them: the percentage overstates the row), can keep a line from being met but never make it met: "
        "a line whose every row meets the threshold says unsettled where it counts any.\n- **Slowed cores.** A bracketed row also "
        "carries a short FP32 FMA burst on its workers before and after it; where the slower one is more than 10% "
        "below the median of every burst its run took on them (`ceiling_fma`, `ceiling_fma_end` and each bracketed "
        "row's two) it says \"core at N% of its run's usual FMA rate\", and where it is more than 25% below the "
        "fastest its run saw them do (`ceiling_fma`, `ceiling_fma_end`, or the other end) \"core at N% of its FMA "
        "ceiling\" (the run's fastest burst is an extreme of many, so the 10% are held to the median; the 25% "
        "catch a state that lasted the whole run, such as a core shared with a sibling thread): the workers ran "
        "slow (a clock drop, a neighbour on the sibling hardware thread) under a memory bracket that may have held, so the row understates its kernel.\n- **Slowed workers.** A burst of 2 or more workers also "
        "times each worker's own share; where its slowest ran more than 10% below its fastest (`core_slowest_pct`, "
        "on PU `core_slowest_pu`) the row says \"a worker at N% of the fastest's FMA rate (PU k)\" and counts as "
        "slowed too: a burst's GFLOP/s is its last worker's, so a run whose every burst had one worker slowed "
        "measured its FMA ceiling in that state. Such rows can keep a line from "
        "failing but never make it fail (a line missed only by them says unsettled), and a pair with one can "
        "do neither.\n- **Barrier crossings.** A bracketed row of 2 or more workers also carries their crossing of the per-layer barrier "
        "before and after it (`barrier_before_ns`, `barrier_after_ns`); where the two lie more than 2x apart it "
        "says \"barrier crossing moved\": the host moved their vCPUs while it ran, so its repetitions mix two "
        "placements; informational, it changes no verdict.\n"
        "- **Barrier waits.** A multi-threaded decode row whose workers spent 25% or more of their time waiting at the "
        "per-layer barriers says \"workers waited N% at barriers\" (`barrier_wait_pct`): one worker ran slower "
        "than the others (descheduled by the host, a slower or shared core), so the row's time is that "
        "worker's, and how much of the waiting was for the worker on one PU, the one the others waited for most "
        "(`barrier_slowest_pct`, `barrier_slowest_pu`); informational, it changes no verdict.\n- **Huge pages.** A row whose buffer "
        "transparent huge pages backed only in part where the OS offered them (`thp_share` below 99% with "
        "`thp_mode` always or madvise) says \"N% on huge pages\": the rest sat on 4 KiB pages, so its time "
        "includes TLB misses (a kernel short of free 2 MiB pages); like a slowed core it can keep a line from "
        "failing but never make it fail.\n- **Fastest repetitions.** DRAM and LLC lines also "
        "give the rows' fastest repetitions against the same ceilings, "
        "since a ceiling is its own best repetition (as STREAM reports it); the verdict stays on the medians.\n"
        "- **Prefill stores** (informational) holds the same prefill rows' written bytes alone to the streaming-store "
        "ceiling, the stricter yardstick for a copy that streams its stores: the copy ceiling reads for ownership "
        "before every store. A prefill also reads and encodes the fp32 source, 2x (fp16, bf16) or 4x (int8) the "
        "bytes it writes, so for narrow dtypes this line shows the encoder's rate.\n- **Compute bound.** DRAM, LLC and GQA lines "
        "count the rows that would miss the threshold even if they ran at the machine's FP32 FMA peak "
        "(`ceiling_fma` at their thread count) for the flops of kvbench's cost model (the roofline's compute "
        "roof): those are bound by the arithmetic, not by how the kernel uses it. The bound is optimistic: "
        "converting fp16, bf16 and int8 elements to fp32 takes instructions that are not counted as flops.";
  const auto with_barrier_bound = [](const EfficiencyTargets& t) {
    return std::any_of(t.lines.begin(), t.lines.end(), [](const TargetLine& l) { return l.barrier_bound.has_value(); });
  };
  if (std::any_of(all_targets.begin(), all_targets.end(), with_barrier_bound)) {
    md << "\n- **Barrier bound.** DRAM and LLC lines also count the rows that would miss the threshold even if their bytes streamed "
          "at their ceiling and each of their layers added one crossing of the run's `ceiling_barrier` at their "
          "thread count (the barrier a decode step ends each layer with, crossed back to back: the least a "
          "layer's synchronisation costs): there one barrier per layer, not the kernel, stands in the way. "
          "That bound is optimistic too: workers that arrive apart wait longer.";
  }
  md << "\n\n";
  if (ms.size() > 1) {
    if (const std::string across = targets_across_machines(ms, all_targets); !across.empty()) {
      md << "### Across machines\n\nEach machine's worst row over its thread counts and where it ran, then its "
            "thread counts by verdict (every line's rows and notes are in the machine's own tables below).\n\n"
         << across << "\n";
    }
  }
  bool any = false;
  for (std::size_t i = 0; i < ms.size(); ++i) {
    const MachineResults& m = ms[i];
    const EfficiencyTargets& targets = all_targets[i];
    const RunCeilings ceilings(m);
    const std::vector<TargetLine>& lines = targets.lines;
    if (lines.empty()) continue;
    any = true;
    TextTable t({"target", "configuration", "measured", "threshold", "verdict"});
    for (const TargetLine& l : lines) {
      t.add_row({target_column(l, m), target_configuration(l, ceilings), target_measured(l), target_threshold_text(l.kind),
                 target_verdict(l)});
    }
    md << "### " << m.id << ": " << md_escape(m.label) << "\n\n";
    if (const std::string glance = targets_at_a_glance(lines); !glance.empty()) {
      md << "At a glance: each line's worst row and verdict by thread count (the table after it has every line's "
            "configuration, rows and notes).\n\n"
         << glance << "\n";
    }
    md << t.markdown() << "\n";
    if (targets.rows_beyond_streaming_group > 0) {
      md << "Left out of the DRAM and LLC targets: " << targets.rows_beyond_streaming_group << " row"
         << (targets.rows_beyond_streaming_group == 1 ? "" : "s") << " with more than " << kMaxStreamingGroupSize
         << " query heads per KV head (G fp32 FMAs per cached element for K and for V: judged by the GQA line; "
            "see Per configuration).\n\n";
    }
  }
  if (!any) md << "No rows any target is computed from (decode\\_step, attention, append, prefill\\_copy, peer rows).\n\n";
}

void configurations_section(std::ostream& md, const std::vector<MachineResults>& ms) {
  std::vector<RunCeilings> ceilings;
  for (const auto& m : ms) ceilings.emplace_back(m);
  // Rows: configuration without ws_level (the level depends on the machine's caches).
  std::vector<Col> key_cols;
  for (Col c : kConfigColumns) {
    if (c != Col::ws_level) key_cols.push_back(c);
  }
  std::vector<std::string> order;
  std::map<std::string, const ResultRow*> first;
  std::map<std::string, std::vector<const ResultRow*>> cells;
  for (std::size_t i = 0; i < ms.size(); ++i) {
    for (const ResultRow& r : ms[i].summaries) {
      if (r.is_ceiling()) continue;
      const std::string key = join_columns(r, key_cols);
      if (!cells.count(key)) {
        cells[key].assign(ms.size(), nullptr);
        order.push_back(key);
        first[key] = &r;
      }
      if (!cells[key][i]) cells[key][i] = &r;
    }
  }
  md << "## Per configuration\n\nMedian over repetitions. GB/s = cost-model bytes / time; % of ceiling is "
        "against the machine's measured read ceiling at the row's cache level and thread count; \"ceiling moved "
        "X%\" marks a --ceiling-bracket row whose own ceiling changed by more than 10% while it was measured, "
        "\"core at N% of its run's usual FMA rate\" one whose workers' FMA burst before or after it fell more than "
        "10% below the median of its run's bursts on them, \"core at N% of its FMA ceiling\" more than 25% below "
        "the fastest its run saw them do, \"a worker at N% of the fastest's FMA rate\" one whose burst's slowest "
        "worker ran more than 10% below its fastest, \"barrier crossing moved\" one whose workers' crossing of the "
        "per-layer barrier before and after it lay more than 2x apart.\n\n";
  if (order.empty()) {
    md << "No kernel rows in the input.\n\n";
    return;
  }
  std::vector<std::string> header = {"benchmark", "variant", "model", "dtype", "layout", "shape", "context",
                                     "window", "batch", "threads", "cache"};
  for (const auto& m : ms) {
    for (const char* h : {" GB/s", " % ceil", " tok/s", " level"}) header.push_back(m.id + h);
  }
  TextTable t(header);
  for (const auto& key : order) {
    const ResultRow& r = *first[key];
    // The variant axes that apply to this row (paged block size and order, ragged batches,
    // chunked Tq, hybrid sliding pattern).
    std::string variant;
    const auto add = [&](const std::string& part) {
      if (!part.empty()) variant += (variant.empty() ? "" : " ") + part;
    };
    if (!r.str(Col::block_size).empty()) add("bs " + r.str(Col::block_size));
    add(r.str(Col::block_order));
    add(r.str(Col::seq_lens));
    if (!r.str(Col::query_tokens).empty()) add("Tq " + r.str(Col::query_tokens));
    add(r.str(Col::sliding_pattern));
    std::vector<std::string> row = {md_escape(r.str(Col::benchmark)), md_escape(variant), r.str(Col::model), r.str(Col::dtype),
                                    md_escape(r.str(Col::layout)), shape_label(r), r.str(Col::context),
                                    r.str(Col::window), r.str(Col::batch), r.str(Col::threads), r.str(Col::cache_state)};
    for (std::size_t i = 0; i < ms.size(); ++i) {
      const ResultRow* c = cells[key][i];
      if (!c) {
        row.insert(row.end(), {"", "", "", ""});
        continue;
      }
      const auto g = attained_gbps(*c);
      const auto pct = pct_of_roof(ms[i], *c);
      std::string gb = g ? format_number(*g, 4) : "";
      if (c->failed_validation()) gb += " (INVALID)";
      row.push_back(gb);
      std::string pct_cell = pct ? format_number(*pct, 3) : "";
      row.push_back(pct_cell + trust_notes(*c, ceilings[i]));
      row.push_back(c->num(Col::tokens_per_s) ? format_number(*c->num(Col::tokens_per_s), 4) : "");
      row.push_back(c->str(Col::ws_level));
    }
    t.add_row(row);
  }
  md << t.markdown() << "\n";
}

std::string range_text(double lo, double hi) {
  const long a = std::lround(lo), b = std::lround(hi);
  return a == b ? std::to_string(a) + "%" : std::to_string(a) + "-" + std::to_string(b) + "%";
}

// Which PU the workers waited for, over the rows that name one (barrier_slowest_pu): only for
// runs that wrote the column.
void barrier_pus_section(std::ostream& md, const std::vector<MachineResults>& ms) {
  std::vector<std::pair<const MachineResults*, std::vector<BarrierPuTally>>> tallies;
  for (const auto& m : ms) {
    if (auto t = tally_barrier_pus(m.summaries); !t.empty()) tallies.emplace_back(&m, std::move(t));
  }
  if (tallies.empty()) return;
  md << "## Barrier waits by PU\n\nMulti-threaded `decode_step` and `attention` rows name the PU whose worker the "
        "others waited for most at the per-layer barriers (`barrier_slowest_pu`) and its share of their waiting "
        "(`barrier_slowest_pct`). Per machine and thread count, over the rows whose workers waited "
     << std::lround(kBarrierPuMinWaitPct)
     << "% or more (a smaller wait's split is noise): the PU they name most, and in how many of them it held "
        "more than halfway from an even split (100 / threads %) to all of the waiting. \"one PU\" (at least 3 "
        "such rows, 3 in 4 of them held by it) points at that PU: an interrupt target, a busy sibling thread, a "
        "slower core. Otherwise the PU changes from row to row or holds no more than its part, which points at "
        "the host's scheduling. Informational: it changes no verdict.\n\n";
  TextTable t({"machine", "threads", "rows", "waited >= " + std::to_string(std::lround(kBarrierPuMinWaitPct)) + "%",
               "workers waited", "PU named most", "its rows", "held by it", "its share", "PUs named", "reading"});
  for (const auto& [m, list] : tallies) {
    for (const BarrierPuTally& b : list) {
      if (b.waiting_rows == 0) {
        t.add_row({md_escape(m->label), std::to_string(b.threads), std::to_string(b.rows), "0", "", "", "", "", "",
                   "", "little waiting"});
        continue;
      }
      t.add_row({md_escape(m->label), std::to_string(b.threads), std::to_string(b.rows),
                 std::to_string(b.waiting_rows), range_text(b.waited_min, b.waited_max), std::to_string(b.top_pu),
                 std::to_string(b.top_rows), std::to_string(b.top_held_rows),
                 range_text(b.top_share_min, b.top_share_max), std::to_string(b.distinct_pus),
                 b.one_pu() ? "one PU: " + std::to_string(b.top_pu) : "no one PU"});
    }
  }
  md << t.markdown() << "\n";
}

std::string share_of(double part_ns, double step_ns) { return fixed(100 * part_ns / step_ns, 1) + "%"; }

// Each LLC-sized decode step's time split by what holds it (analysis/step_breakdown.h): only for
// runs that measured ceiling_barrier.
void step_breakdown_section(std::ostream& md, const std::vector<MachineResults>& ms) {
  std::vector<std::pair<const MachineResults*, std::vector<StepBreakdown>>> all;
  for (const auto& m : ms) {
    if (auto b = break_down_llc_steps(m); !b.empty()) all.emplace_back(&m, std::move(b));
  }
  if (all.empty()) return;
  md << "## Where the LLC-sized steps' time goes\n\nEach `decode_step` and `attention` row the LLC-resident target "
        "judges, from runs that measured `ceiling_barrier`, split into four parts, as shares of its step:\n\n"
        "- **Bytes at the ceiling:** its bytes at the run's LLC read ceiling (the row's % of that ceiling).\n"
        "- **Crossings:** one crossing of the per-layer barrier per layer (`ceiling_barrier` x layers), the "
        "least its synchronisation costs.\n"
        "- **Waiting:** the workers' mean wait at those barriers for the last of them to arrive "
        "(`barrier_wait_pct`): one worker's part of each layer ends after the others'.\n"
        "- **Rest:** the kernel's and the schedule's own cost beyond streaming (each call's fixed cost, the "
        "merges, the append, a worker the host slowed while no other waited for it), also per layer: what "
        "kernel and partition changes can work on.\n\n"
        "A negative rest means the row streamed faster than its ceiling.\n\n";
  for (const auto& [m, list] : all) {
    std::set<std::string> runs;
    for (const StepBreakdown& b : list) runs.insert(b.row->str(Col::run_id));
    const bool several_runs = runs.size() > 1;  // each row against its own run's ceilings: say which
    std::vector<std::string> header = {"configuration", "step (us)", "bytes at the ceiling", "crossings", "waiting",
                                       "rest", "rest per layer (us)"};
    if (several_runs) header.insert(header.begin() + 1, "run");
    TextTable t(header);
    for (const StepBreakdown& b : list) {
      const ResultRow& r = *b.row;
      std::vector<std::string> cells = {
          md_escape(r.str(Col::benchmark)) + " " + md_escape(r.str(Col::dtype)) + " " + r.str(Col::threads) + "T; " +
              shape_label(r) + " ctx " + r.str(Col::context),
          fixed(b.step_ns / 1e3, 1), share_of(b.streaming_ns, b.step_ns), share_of(b.crossings_ns, b.step_ns),
          b.waiting_ns ? share_of(*b.waiting_ns, b.step_ns) : "-", share_of(b.rest_ns, b.step_ns),
          fixed(b.rest_ns / b.layers / 1e3, 2)};
      if (several_runs) cells.insert(cells.begin() + 1, md_escape(r.str(Col::run_id)));
      t.add_row(cells);
    }
    md << "### " << m->id << ": " << md_escape(m->label) << "\n\n" << t.markdown() << "\n";
  }
}

void knees_section(std::ostream& md, const std::vector<MachineResults>& ms, double drop) {
  md << "## Knees\n\nA knee is where attained bandwidth drops by at least " << format_percent(drop, 0).substr(1)
     << " between neighbouring working sets of the same series (`--knee-drop`). The knee's working set is the "
        "last one before the drop; the nearest cache is the closest size on a log scale.\n\n";
  TextTable t({"machine", "series", "knee working set", "next working set", "GB/s before", "GB/s after", "drop",
               "nearest cache", "ws / cache"});
  for (const auto& m : ms) {
    const auto series = kernel_series(m);
    const auto ceilings = ceiling_read_series(m);
    for (const auto* group : {&series, &ceilings}) {
      for (const auto& k : series_knees(*group, cache_levels(m), drop)) {
        t.add_row({m.id, md_escape(k.series->label), format_bytes(k.knee.working_set_bytes),
                   format_bytes(k.knee.next_working_set_bytes), format_number(k.knee.gbps_before, 4),
                   format_number(k.knee.gbps_after, 4), format_percent(k.knee.drop).substr(1),
                   k.knee.nearest_cache.empty() ? "n/a"
                                                : k.knee.nearest_cache + " " + format_bytes(k.knee.nearest_cache_bytes),
                   k.knee.nearest_cache.empty() ? "" : format_number(k.knee.ws_over_cache, 3)});
      }
    }
  }
  if (t.empty()) {
    md << "No knees found.\n\n";
  } else {
    md << t.markdown() << "\n";
  }
}

void model_fit_section(std::ostream& md, const std::vector<MachineResults>& ms,
                       const std::vector<ModelPreset>& presets, const std::string& note) {
  md << "## Model fit: largest context whose whole KV cache fits in the LLC\n\n"
     << note << " KV cache = 2 x layers x kv_heads x context x head_dim x bytes (int8: plus a 4-byte scale per "
        "row). `>= max` means the model's whole max-context fits.\n\n";
  if (presets.empty()) return;
  std::vector<std::string> header = {"model", "dtype", "KV bytes/token", "max-context"};
  for (const auto& m : ms) header.push_back(m.id + " (LLC " + opt_bytes(m.llc_bytes) + ")");
  TextTable t(header);
  for (const auto& p : presets) {
    for (std::string_view dtype : kFitDTypes) {
      std::vector<std::string> row = {p.name, std::string(dtype), std::to_string(kv_bytes_per_token(p, dtype)),
                                      std::to_string(p.max_context)};
      for (const auto& m : ms) {
        if (!m.llc_bytes) {
          row.push_back("n/a");
          continue;
        }
        const auto ctx = largest_context_in_llc(p, dtype, *m.llc_bytes);
        row.push_back(std::to_string(ctx) + (ctx >= p.max_context ? " (>= max)" : ""));
      }
      t.add_row(row);
    }
  }
  md << t.markdown() << "\n";
}

void peers_section(std::ostream& md, const std::vector<MachineResults>& ms) {
  TextTable t({"machine", "peer", "kvbench", "dtype", "shape", "context", "threads", "kvbench GB/s", "peer GB/s",
               "kvbench ns/step", "peer ns/step", "kvbench/peer speed"});
  for (const auto& m : ms) {
    for (const PeerComparison& c : compare_with_peers(m)) {
      const ResultRow& peer = *c.peer;
      const std::string gp = c.peer_gbps ? format_number(*c.peer_gbps, 4) : "";
      const std::string ns_peer = format_number(peer.num_or(Col::ns_per_step, NAN), 4);
      // A peer whose output failed its accuracy check keeps its timings but gets no speed ratio.
      const std::string peer_name = md_escape(peer.str(Col::benchmark)) + (peer.failed_validation() ? " (INVALID)" : "");
      if (!c.ours) {
        t.add_row({m.id, peer_name, "(no kvbench row of this shape)", peer.str(Col::dtype),
                   shape_label(peer), peer.str(Col::context), peer.str(Col::threads), "", gp, "", ns_peer, ""});
        continue;
      }
      const ResultRow& ours = *c.ours;
      const std::optional<double> speed = c.valid_speed();
      t.add_row({m.id, peer_name, md_escape(ours.str(Col::benchmark)) +
                 (ours.failed_validation() ? " (INVALID)" : ""), peer.str(Col::dtype), shape_label(peer),
                 peer.str(Col::context), peer.str(Col::threads), c.kvbench_gbps ? format_number(*c.kvbench_gbps, 4) : "",
                 gp, format_number(ours.num_or(Col::ns_per_step, NAN), 4), ns_peer,
                 speed ? format_number(*speed, 3) + "x" : ""});
    }
  }
  if (t.empty()) return;
  md << "## kvbench vs peers\n\nPeer rows (`peer_*`) beside kvbench rows of the same shape, dtype, context and "
        "threads. Speed ratio = peer time / kvbench time (> 1: kvbench is faster).\n\n"
     << t.markdown() << "\n";
}

void invalid_section(std::ostream& md, const std::vector<MachineResults>& ms) {
  TextTable t({"machine", "file:line", "benchmark", "dtype", "context", "threads", "max error"});
  for (const auto& m : ms) {
    for (const ResultRow& r : m.summaries) {
      if (!r.failed_validation()) continue;
      const auto err = r.num(Col::max_rel_err);
      t.add_row({m.id, r.file + ":" + std::to_string(r.line), md_escape(r.str(Col::benchmark)), r.str(Col::dtype),
                 r.str(Col::context), r.str(Col::threads), err ? format_number(*err * 100, 3) + "%" : "not recorded"});
    }
  }
  if (t.empty()) return;
  md << "## Rows that failed validation\n\nThese kernels did not match the double-precision reference "
        "(`valid=0`). Their timings are listed above marked INVALID and left out of figures and knees. Max error: "
        "the largest difference from the reference relative to the largest reference output (`max_rel_err`), "
        "against the tolerance its writer held it to (kvbench's attention: 0.1% of the reference over the decoded "
        "cache; `analysis/peers/torch_attention.py`: 0.01% for fp32, 2% for fp16, 5% for bf16).\n\n"
     << t.markdown() << "\n";
}

}  // namespace

int report_main(int argc, char** argv) {
  try {
    const auto options = parse_options(argc, argv);
    if (!options) return kExitOk;
    const ReportOptions& o = *options;
    // Validate everything before touching the output directory.
    const auto rows = load_results(o.inputs);
    std::string presets_note;
    const auto presets = find_presets(o, &presets_note);
    const auto machines = group_by_machine(rows);
    StagedDirectory staged(o.out, o.force);
    const fs::path figures_dir = staged.path() / "figures";
    fs::create_directory(figures_dir);
    const auto figures = build_report_figures(machines, o.knee_drop);
    // Without gnuplot (a lent host with no package manager) the report is still written, with
    // each figure's script and data to render elsewhere, and says so; a gnuplot that fails stops it.
    std::string not_rendered;
    for (const auto& f : figures) {
      if (!not_rendered.empty()) {
        write_figure_sources(figures_dir, f.figure);
        continue;
      }
      try {
        render_figure(figures_dir, f.figure);
      } catch (const GnuplotNotFound& e) {
        not_rendered = e.what();
        std::cerr << "kvbench report: warning: " << not_rendered
                  << "; figures left as gnuplot scripts and data, not drawn\n";
      }
    }

    std::ostringstream md;
    md << "# kvbench report\n\nInputs: ";
    for (std::size_t i = 0; i < o.inputs.size(); ++i) md << (i ? ", " : "") << "`" << o.inputs[i] << "`";
    md << " (" << rows.size() << " rows, " << machines.size() << " machine" << (machines.size() == 1 ? "" : "s")
       << ").\n\n";
    std::vector<EfficiencyTargets> targets;
    for (const auto& m : machines) targets.push_back(evaluate_targets(m));
    headline_section(md, machines);
    efficiency_section(md, machines, targets);
    machines_section(md, machines);
    ceilings_section(md, machines);
    md << "## Figures\n\n";
    if (not_rendered.empty()) {
      md << "Each figure has an SVG, a PNG, its gnuplot script (`.gp`) and data (`.dat`) in `figures/`; edit the "
            "script and run `gnuplot NAME.gp` there to restyle. Figures of one kind share their axes across "
            "machines.\n\n";
    } else {
      md << "**Not drawn:** " << md_escape(not_rendered) << ". Each figure's gnuplot script (`.gp`) and data "
            "(`.dat`) are in `figures/`: run `gnuplot NAME.gp` there, where gnuplot is installed, to draw its SVG "
            "and PNG. Figures of one kind share their axes across machines.\n\n";
    }
    for (const char* kind : {"roofline", "llc_fit", "context", "threads"}) {
      for (const auto& f : figures) {
        if (f.kind != kind) continue;
        const std::string stem = "figures/" + f.figure.name;
        md << "### " << f.figure.title << "\n\n";
        if (not_rendered.empty()) md << "![" << f.figure.title << "](" << stem << ".png)\n\n";
        md << f.caption;
        if (not_rendered.empty()) md << " [SVG](" << stem << ".svg),";
        md << " [script](" << stem << ".gp), [data](" << stem << ".dat)\n\n";
      }
    }
    configurations_section(md, machines);
    barrier_pus_section(md, machines);
    step_breakdown_section(md, machines);
    knees_section(md, machines, o.knee_drop);
    model_fit_section(md, machines, presets, presets_note);
    peers_section(md, machines);
    invalid_section(md, machines);
    {
      std::ofstream out(staged.path() / "report.md");
      out << md.str();
      if (!out.good()) throw std::runtime_error("cannot write report.md");
    }
    {
      std::ofstream out(staged.path() / "targets.csv");
      out << targets_csv(machines, targets);
      if (!out.good()) throw std::runtime_error("cannot write targets.csv");
    }
    staged.commit();
    std::cout << "kvbench report: wrote " << (fs::path(o.out) / "report.md").string() << ", targets.csv and "
              << figures.size() << (not_rendered.empty() ? " figures\n" : " figure scripts (not drawn: no gnuplot)\n");
    return kExitOk;
  } catch (...) {
    return report_current_exception("report", kExitRegression);
  }
}

}  // namespace kvb
