#include "analysis/compare_command.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <boost/program_options.hpp>
#include <iostream>
#include <set>
#include <sstream>

#include "analysis/barrier_wait.h"
#include "analysis/ceiling_change.h"
#include "analysis/command_line.h"
#include "analysis/input_error.h"
#include "analysis/result_comparison.h"
#include "analysis/staged_output.h"
#include "analysis/text_table.h"

namespace kvb {
namespace po = boost::program_options;

namespace {

struct Options {
  std::string base, next, format = "console", out, match_threads = "exact", p_adjust = "holm", gate = "all";
  bool strict = false, force = false, cross_cpu = false;
  CompareOptions compare;
};

const char* kUsage =
    "usage: kvbench compare <base.csv> <new.csv> [--threshold F] [--alpha F] [--p-adjust holm|none]\n"
    "                       [--strict] [--cross-cpu] [--gate all|kernels]\n"
    "                       [--match-threads exact|max] [--format console|csv|md] [--out FILE [--force]]\n"
    "       kvbench compare <base1.csv>,<base2.csv>,... <new1.csv>,<new2.csv>,...  (rounds: basei and newi\n"
    "                       ran back to back; each configuration judged on the rounds' time ratios)";

// "a.csv,b.csv" -> {"a.csv", "b.csv"}.
std::vector<std::string> file_list(const std::string& text, const char* side) {
  std::vector<std::string> files;
  std::size_t start = 0;
  for (;;) {
    const std::size_t comma = text.find(',', start);
    files.push_back(text.substr(start, comma == std::string::npos ? comma : comma - start));
    if (files.back().empty()) throw InputError(std::string("empty file name in the ") + side + " list '" + text + "'");
    if (comma == std::string::npos) return files;
    start = comma + 1;
  }
}

std::vector<std::vector<ResultRow>> load_all(const std::vector<std::string>& files) {
  std::vector<std::vector<ResultRow>> out;
  for (const std::string& f : files) out.push_back(load_results(f));
  return out;
}

std::optional<Options> parse_options(int argc, char** argv) {
  Options o;
  po::options_description visible("kvbench compare options");
  visible.add_options()("help,h", "show this help")(
      "threshold", po::value(&o.compare.threshold)->default_value(0.05, "0.05"),
      "relative time change below which a configuration is 'same'")(
      "alpha", po::value(&o.compare.alpha)->default_value(0.05, "0.05"),
      "significance level of the test (the rounds' paired t-test, else Mann-Whitney U), after --p-adjust")(
      "p-adjust", po::value(&o.p_adjust)->default_value("holm"),
      "holm: p-values adjusted over all tested configurations (Holm), so identical builds flag no "
      "configuration with probability >= 1 - alpha; none: each configuration's own test")(
      "strict", po::bool_switch(&o.strict), "different cpu_model/isa/compiler/kvbench_version/LLC size is an error (exit 2)")(
      "cross-cpu", po::bool_switch(&o.cross_cpu),
      "CPU B / CPU A ratio table (automatic when cpu_model differs)")(
      "match-threads", po::value(&o.match_threads)->default_value("exact"),
      "exact: match on thread count; max: compare each side at its largest thread count")(
      "format", po::value(&o.format)->default_value("console"), "console, csv or md")(
      "out", po::value(&o.out), "write the table to FILE instead of stdout")(
      "force", po::bool_switch(&o.force), "replace an existing --out file")(
      "gate", po::value(&o.gate)->default_value("all"),
      "which significant slowdowns set exit status 1: all (ceiling rows too: the machine got slower) or "
      "kernels (ceiling_* rows shown, not counted: an A/B of code on one machine, as kvbench ab runs it)");
  po::options_description all;
  all.add(visible).add_options()("base", po::value(&o.base))("new", po::value(&o.next));
  po::positional_options_description positional;
  positional.add("base", 1).add("new", 1);
  if (!parse_command_line(argc, argv, visible, all, positional, kUsage)) return std::nullopt;
  if (o.base.empty() || o.next.empty()) throw InputError(std::string("need two CSV files\n") + kUsage);
  if (o.format != "console" && o.format != "csv" && o.format != "md") {
    throw InputError("--format: unknown format '" + o.format + "' (console, csv, md)");
  }
  if (o.match_threads == "exact") {
    o.compare.match_threads = MatchThreads::kExact;
  } else if (o.match_threads == "max") {
    o.compare.match_threads = MatchThreads::kMax;
  } else {
    throw InputError("--match-threads: unknown mode '" + o.match_threads + "' (exact, max)");
  }
  if (o.gate != "all" && o.gate != "kernels") throw InputError("--gate: unknown value '" + o.gate + "' (all, kernels)");
  if (o.p_adjust == "holm") {
    o.compare.p_adjust = PAdjust::kHolm;
  } else if (o.p_adjust == "none") {
    o.compare.p_adjust = PAdjust::kNone;
  } else {
    throw InputError("--p-adjust: unknown adjustment '" + o.p_adjust + "' (holm, none)");
  }
  if (!(o.compare.threshold >= 0)) throw InputError("--threshold must be >= 0");
  if (!(o.compare.alpha > 0 && o.compare.alpha < 1)) throw InputError("--alpha must be between 0 and 1");
  return o;
}

// Configuration columns that differ somewhere in the comparison (benchmark always): keeps the
// console table narrow without hiding what distinguishes rows.
std::vector<Col> varying_columns(const Comparison& c, MatchThreads mode) {
  std::vector<Col> out;
  for (Col col : match_columns(mode)) {
    std::set<std::string> seen;
    for (const auto& r : c.rows) seen.insert(r.base_example->str(col));
    if (col == Col::benchmark || seen.size() > 1) out.push_back(col);
  }
  return out;
}

std::string cell(std::optional<double> v, int digits = 4) { return v ? format_number(*v, digits) : ""; }

// Two significant digits at any size: format_number's fixed notation would show p = 0.0035 as 0.00.
std::string p_cell(std::optional<double> p) {
  if (!p) return "";
  char text[32];
  std::snprintf(text, sizeof text, "%.2g", *p);
  return text;
}

// One CPU against itself: the note where the two sides ran against ceilings far apart.
// Across CPUs the ceilings differ by design, and the table's GB/s columns already say so; a
// ceiling row's time is its ceiling.
std::string moved_ceiling_note(const ComparedConfig& r, bool cross) {
  if (cross || r.base_example->is_ceiling()) return "";
  return ceiling_change_note(r.base_ceiling_gbps, r.new_ceiling_gbps, r.base_pct, r.new_pct);
}

// One CPU against itself: the note where the two sides' workers crossed the per-layer barrier at
// times far apart (the host placed their vCPUs differently). Across CPUs they differ by design.
std::string moved_barrier_note(const ComparedConfig& r, bool cross) {
  if (cross) return "";
  return barrier_change_note(r.base_barrier_ns, r.new_barrier_ns);
}

// One CPU against itself: "core slowed in 3 of 18 base rows, 0 of 18 new" where either side's
// core brackets caught its workers slowed (a clock drop, a busy sibling thread): the machine
// slowed those rows, so their time ratio is the machine's as well as the code's.
std::string core_slowed_note(const ComparedConfig& r, bool cross) {
  if (cross || (r.base_core_slowed == 0 && r.new_core_slowed == 0)) return "";
  return "core slowed in " + std::to_string(r.base_core_slowed) + " of " + std::to_string(r.base_core_bracketed) +
         " base rows, " + std::to_string(r.new_core_slowed) + " of " + std::to_string(r.new_core_bracketed) + " new";
}

// Runs not paired as rounds: "barrier crossing moved > 2.0x within 1 of 6 runs" where some run
// crossed at its end far from its start (rounds count such a run's round as placed apart).
std::string moved_midway_note(const ComparedConfig& r, bool cross) {
  if (cross || r.paired() || r.runs_moved_midway == 0) return "";
  return "barrier crossing moved > " + format_number(kBarrierMovedRatio, 2) + "x within " +
         std::to_string(r.runs_moved_midway) + " of " + std::to_string(r.runs_crossing_both_ends) + " runs";
}

// Rounds: "arms' barrier crossings > 2.0x apart in 3 of 8 rounds" where the two arms of some rounds ran on
// different placements (each run's own crossing); their ratios carry the placement's change.
std::string placed_apart_rounds_note(const ComparedConfig& r, bool cross) {
  if (cross || r.rounds_placed_apart == 0) return "";
  std::string note = "arms' barrier crossings > " + format_number(kBarrierMovedRatio, 2) + "x apart in " +
                     std::to_string(r.rounds_placed_apart) + " of " + std::to_string(r.rounds_crossing_measured) + " rounds";
  if (r.same_placement_ratio) note += " (the others' median ratio " + format_number(*r.same_placement_ratio, 3) + ")";
  return note;
}

// Rounds: "arms' barrier waits apart in 3 of 11 rounds (13% vs 31%; the others' median ratio 1.00)"
// where one arm of some rounds ran with a slow worker the other had not; the widest pair named.
std::string waited_apart_rounds_note(const ComparedConfig& r, bool cross) {
  if (cross || r.rounds_waited_apart == 0) return "";
  const auto pct = [](double x) { return std::to_string(std::lround(x)) + "%"; };
  std::string note = "arms' barrier waits apart in " + std::to_string(r.rounds_waited_apart) + " of " +
                     std::to_string(r.rounds_wait_measured) + " rounds (" + pct(r.wait_apart_low) + " vs " +
                     pct(r.wait_apart_high);
  if (r.same_waits_ratio) note += "; the others' median ratio " + format_number(*r.same_waits_ratio, 3);
  return note + ")";
}

// Each round's ratio, in round order: "1.08 1.14 1.15".
std::string round_ratios(const ComparedConfig& r) {
  std::string out;
  for (double x : r.round_ratios) out += (out.empty() ? "" : " ") + format_number(x, 3);
  return out;
}

TextTable build_table(const Comparison& c, const Options& o, bool cross, bool all_columns, bool rounds) {
  const auto cols = all_columns ? match_columns(o.compare.match_threads) : varying_columns(c, o.compare.match_threads);
  std::vector<std::string> header;
  for (Col col : cols) header.emplace_back(column_name(col));
  const bool show_threads = o.compare.match_threads == MatchThreads::kMax;
  if (show_threads) header.insert(header.end(), {"base_threads", "new_threads"});
  header.insert(header.end(), {"base_n", "new_n", "base_ns", "new_ns"});
  if (cross) header.insert(header.end(), {"base_gbps", "new_gbps", "gbps_ratio"});
  if (rounds) header.insert(header.end(), {"rounds", "round_ratios"});
  const bool holm = o.compare.p_adjust == PAdjust::kHolm;
  header.insert(header.end(), {"time_ratio", "change", "best_ratio"});
  if (rounds && !cross) header.emplace_back("held_ratio");
  header.emplace_back("p_value");
  if (holm) header.emplace_back("p_holm");
  header.insert(header.end(), {"verdict", "note"});
  TextTable t(header);
  for (const auto& r : c.rows) {
    std::vector<std::string> row;
    for (Col col : cols) row.push_back(r.base_example->str(col));
    if (show_threads) row.insert(row.end(), {r.base_example->str(Col::threads), r.new_example->str(Col::threads)});
    row.insert(row.end(), {std::to_string(r.base_n), std::to_string(r.new_n), format_number(r.base_ns, 5),
                           format_number(r.new_ns, 5)});
    if (cross) {
      std::optional<double> ratio;
      if (r.base_gbps && r.new_gbps && *r.base_gbps > 0) ratio = *r.new_gbps / *r.base_gbps;
      row.insert(row.end(), {cell(r.base_gbps), cell(r.new_gbps), cell(ratio)});
    }
    if (rounds) row.insert(row.end(), {std::to_string(r.round_ratios.size()), round_ratios(r)});
    const std::optional<double> p = r.p_value();
    std::string note;
    if (r.paired()) {
      const auto faster = std::count_if(r.round_ratios.begin(), r.round_ratios.end(), [](double x) { return x < 1; });
      note = "faster in " + std::to_string(faster) + " of " + std::to_string(r.round_ratios.size()) + " rounds";
    } else if (rounds) {
      note = "in fewer than 2 rounds: pooled repetitions";
      if (!r.utest) note += "; untested";
    } else if (!r.utest) {
      note = "untested: < " + std::to_string(kUTestMinRepetitions) + " repetitions";
    } else if (r.few_repetitions) {
      note = "few repetitions (< " + std::to_string(kUTestOptimalRepetitions) + "): test has low power";
    }
    if (r.base_example->failed_validation() || r.new_example->failed_validation()) {
      note += std::string(note.empty() ? "" : "; ") + "INVALID kernel (valid=0)";
    }
    if (const std::string waited = barrier_wait_change_note(r.base_wait_pct, r.new_wait_pct); !waited.empty()) {
      note += std::string(note.empty() ? "" : "; ") + waited;
    }
    if (const std::string moved = moved_ceiling_note(r, cross); !moved.empty()) {
      note += std::string(note.empty() ? "" : "; ") + moved;
    }
    if (const std::string placed = moved_barrier_note(r, cross); !placed.empty()) {
      note += std::string(note.empty() ? "" : "; ") + placed;
    }
    if (const std::string slowed = core_slowed_note(r, cross); !slowed.empty()) {
      note += std::string(note.empty() ? "" : "; ") + slowed;
    }
    if (const std::string moved = moved_midway_note(r, cross); !moved.empty()) {
      note += std::string(note.empty() ? "" : "; ") + moved;
    }
    if (const std::string placed = placed_apart_rounds_note(r, cross); !placed.empty()) {
      note += std::string(note.empty() ? "" : "; ") + placed;
    }
    if (const std::string waited = waited_apart_rounds_note(r, cross); !waited.empty()) {
      note += std::string(note.empty() ? "" : "; ") + waited;
    }
    row.insert(row.end(), {format_number(r.time_ratio, 4), all_columns ? format_number(r.change, 4) : format_percent(r.change),
                           format_number(r.best_ratio, 4)});
    if (rounds && !cross) row.push_back(r.held_ratio ? format_number(*r.held_ratio, 4) : "-");
    row.push_back(p_cell(p));
    if (holm) row.push_back(p_cell(r.p_adjusted));
    // "slower?": beyond the threshold but untestable, so it does not fail CI.
    row.insert(row.end(), {std::string(verdict_name(r.verdict)) + (!p && r.verdict != Verdict::kSame ? "?" : ""), note});
    t.add_row(row);
  }
  return t;
}

std::string unmatched_text(const char* side, const std::vector<const ResultRow*>& rows, MatchThreads mode,
                           bool markdown) {
  if (rows.empty()) return "";
  std::ostringstream s;
  s << (markdown ? "\n**" : "\n") << rows.size() << " configuration(s) only in " << side
    << (markdown ? "** (not compared):\n\n" : " (not compared):\n");
  for (const ResultRow* r : rows) {
    s << (markdown ? "- `" : "  ") << join_columns(*r, match_columns(mode)) << (markdown ? "`\n" : "\n");
  }
  return s.str();
}

}  // namespace

int compare_main(int argc, char** argv) {
  try {
    const auto parsed = parse_options(argc, argv);
    if (!parsed) return kExitOk;
    const Options& o = *parsed;
    const auto base_files = file_list(o.base, "base"), new_files = file_list(o.next, "new");
    const auto base = load_all(base_files);
    const auto next = load_all(new_files);
    const Comparison c = compare_rounds(base, next, o.compare);
    const bool rounds = c.rounds > 0;
    if (o.strict && !c.environment_differences.empty()) {
      std::string msg = "environments differ (--strict):";
      for (const auto& d : c.environment_differences) msg += "\n  " + d;
      throw InputError(msg);
    }
    const bool cross = o.cross_cpu || c.cpu_differs;
    const bool md = o.format == "md";
    std::ostringstream text;
    if (md) text << "# kvbench compare\n\n";
    if (o.format != "csv") {
      text << (md ? "Base: `" : "base: ") << o.base << (md ? "`, new: `" : "\nnew:  ") << o.next << (md ? "`\n" : "\n");
      for (const auto& d : c.environment_differences) text << (md ? "\n**Environment differs**: " : "WARNING environment differs: ") << d << "\n";
      if (cross) {
        text << (md ? "\n" : "") << "Cross-CPU comparison: ratios are new (CPU B) / base (CPU A) per configuration"
             << (o.compare.match_threads == MatchThreads::kMax ? ", each CPU at its largest thread count" : "")
             << ".\n";
      }
      const bool holm = o.compare.p_adjust == PAdjust::kHolm;
      std::size_t tested = 0;
      for (const auto& r : c.rows) tested += r.p_value().has_value();
      const std::string adjustment =
          holm ? " p_holm: p adjusted by Holm's method over the " + std::to_string(tested) +
                     " tested configurations, so two identical builds flag none of them with probability >= " +
                     format_number(1 - o.compare.alpha, 3) + " (--p-adjust none judges each on its own p)."
               : " Each configuration is judged on its own p (--p-adjust none): about " +
                     format_percent(o.compare.alpha).substr(1) + " of the configurations of two identical builds " +
                     "read significant.";
      if (rounds) {
        text << (md ? "\n" : "") << c.rounds << " rounds: base file i against new file i, run back to back. "
             << "Verdict: |change| > " << format_percent(o.compare.threshold).substr(1) << " and "
             << (holm ? "p_holm" : "p") << " < " << o.compare.alpha
             << ", p from a paired t-test of the logarithms of the rounds' time ratios (new / base median "
                "ns_per_step of each round); time_ratio is their median. Configurations in fewer than 2 "
                "rounds: Mann-Whitney U over the pooled repetitions." << adjustment << "\n";
      } else {
        if (base.size() > 1 || next.size() > 1)
          text << (md ? "\n" : "") << "Pooled: " << base.size() << " base and " << next.size()
               << " new run(s), their repetitions together (the same number of files on each side pairs them "
                  "as rounds).\n";
        text << (md ? "\n" : "") << "Verdict: |change| > " << format_percent(o.compare.threshold).substr(1)
             << " and " << (holm ? "p_holm" : "p") << " < " << o.compare.alpha
             << ", p from a Mann-Whitney U test over per-repetition ns_per_step." << adjustment << "\n";
      }
      // The table drops key columns that are the same on every row; say what they are.
      std::string same;
      for (Col col : match_columns(o.compare.match_threads)) {
        std::set<std::string> seen;
        for (const auto& r : c.rows) seen.insert(r.base_example->str(col));
        if (col != Col::benchmark && seen.size() == 1 && !seen.begin()->empty())
          same += (same.empty() ? "" : ", ") + std::string(column_name(col)) + "=" + *seen.begin();
      }
      if (!same.empty()) text << (md ? "\n" : "") << "Same on every matched row: " << same << ".\n";
      text << "\n";
    }
    const TextTable table = build_table(c, o, cross, o.format == "csv", rounds);
    text << (o.format == "csv" ? table.csv() : md ? table.markdown() : table.console());
    if (o.format != "csv") {
      text << unmatched_text("base", c.only_in_base, o.compare.match_threads, md);
      text << unmatched_text("new", c.only_in_new, o.compare.match_threads, md);
      std::size_t slower = 0, faster = 0, few = 0;
      for (const auto& r : c.rows) {
        slower += r.verdict == Verdict::kSlower && r.significant;
        faster += r.verdict == Verdict::kFaster && r.significant;
        few += r.few_repetitions;
      }
      text << "\n" << c.rows.size() << " matched configuration(s): " << slower << " significantly slower, " << faster
           << " significantly faster.\n";
      if (o.gate == "kernels") {
        const auto ceilings_slower = std::count_if(c.rows.begin(), c.rows.end(), [](const ComparedConfig& r) {
          return r.verdict == Verdict::kSlower && r.significant && r.base_example->is_ceiling();
        });
        text << "Exit status from kernel rows only (--gate kernels): ceiling_* rows measure the machine, which "
                "both arms share";
        if (ceilings_slower) text << "; " << ceilings_slower << " of them significantly slower";
        text << ".\n";
      }
      // What the adjustment held back: rows a single test would have flagged. Noise, or a change
      // too small for this many rounds to show among this many rows.
      std::size_t alone = 0;
      for (const auto& r : c.rows) {
        const auto p = r.p_value();
        alone += o.compare.p_adjust == PAdjust::kHolm && p && *p < o.compare.alpha && !r.significant &&
                 std::fabs(r.change) > o.compare.threshold;
      }
      if (alone) {
        text << alone << " more beyond the threshold with p < " << o.compare.alpha
             << " on their own test but not after Holm's adjustment: noise, or a change that more "
             << (rounds ? "rounds" : "repetitions") << " would show.\n";
      }
      const auto waited = std::count_if(c.rows.begin(), c.rows.end(), [](const ComparedConfig& r) {
        return !barrier_wait_change_note(r.base_wait_pct, r.new_wait_pct).empty();
      });
      if (waited) {
        text << waited << " configuration(s) note workers that waited " << kBarrierWaitFlagPct
             << "% or more of their time at the per-layer barriers on a side: one worker ran slower than "
                "the rest there (descheduled by the host, a shared core), so that side's time is that "
                "worker's, not the code's.\n";
      }
      const double threshold = o.compare.threshold;
      const auto best_within = std::count_if(c.rows.begin(), c.rows.end(), [threshold](const ComparedConfig& r) {
        return r.verdict != Verdict::kSame && std::fabs(r.best_ratio - 1) <= threshold;
      });
      if (best_within) {
        text << best_within << " configuration(s) judged faster or slower have fastest repetitions within "
             << std::lround(threshold * 100)
             << "% of each other (best_ratio): on a shared host the change may be in how often the "
                "machine slowed a side, not in what the code does at its best.\n";
      }
      // Configurations whose note has the part `note_of` writes.
      const auto noted = [&c, cross](std::string (*note_of)(const ComparedConfig&, bool)) {
        return std::count_if(c.rows.begin(), c.rows.end(),
                             [&](const ComparedConfig& r) { return !note_of(r, cross).empty(); });
      };
      if (const auto moved = noted(moved_ceiling_note)) {
        text << moved << " configuration(s) ran against ceilings more than "
             << std::lround((kCeilingMovedRatio - 1) * 100)
             << "% apart (ceiling_gbps, each row's own run's): the machine changed between the runs, so "
                "their time ratio is the machine's as well as the code's; the note's pct_of_ceiling holds "
                "each side against its own ceiling.\n";
      }
      text << read_ceiling_method_note(read_ceiling_method(base), read_ceiling_method(next));
      if (const auto placed = noted(moved_barrier_note)) {
        text << placed << " configuration(s) of 2 or more threads ran where one crossing of the per-layer barrier "
             << "(ceiling_barrier, each side's runs) was more than " << format_number(kBarrierMovedRatio, 2)
             << "x apart: the host placed the workers' vCPUs differently (another core complex, a shared core), "
                "which moves multi-threaded rows by itself; compare them between runs whose crossings agree.\n";
      }
      if (const auto slowed = noted(core_slowed_note)) {
        text << slowed << " configuration(s) had --ceiling-bracket rows whose workers' FMA burst ran more than 10% "
             << "below their run's usual FMA rate or 25% below its FMA ceiling, or one worker more than 10% below "
                "the fastest (a clock drop, a busy "
                "sibling thread): the machine slowed those rows, so their time ratio is the machine's as well as the "
                "code's.\n";
      }
      if (const auto midway = noted(moved_midway_note)) {
        text << midway << " configuration(s) had runs whose crossing of the per-layer barrier at their end "
             << "(ceiling_barrier_end) was more than " << format_number(kBarrierMovedRatio, 2)
             << "x from their start's: the host moved the vCPUs while those runs' rows ran, so their rows mix "
                "two placements.\n";
      }
      if (const auto split_rounds = noted(placed_apart_rounds_note)) {
        text << split_rounds << " configuration(s) had rounds whose crossings of the per-layer barrier lay more than "
             << format_number(kBarrierMovedRatio, 2)
             << "x apart (both runs' ceiling_barrier, and where measured ceiling_barrier_end and the rows' own "
                "barrier_before_ns and barrier_after_ns): in those rounds the "
                "arms, or one arm's rows, ran on different vCPU placements, and their ratios carry the placement's "
                "change as well as the arms'. The note gives the median ratio of the other rounds; the verdict keeps "
                "every round.\n";
      }
      const bool any_held =
          std::any_of(c.rows.begin(), c.rows.end(), [](const ComparedConfig& r) { return r.held_ratio.has_value(); });
      if (rounds && !cross && any_held) {
        text << "held_ratio: the median over the rounds of base's pct_of_ceiling over new's, each run's rows held to "
                "the ceiling their own run measured (with --ceiling-bracket, right before and after the row): a "
                "time ratio with the machine's bandwidth drift between the runs taken out. Informational; the "
                "verdict is the time's.\n";
      }
      if (const auto waits = noted(waited_apart_rounds_note)) {
        text << waits << " configuration(s) had rounds whose arms' workers worked shares of the step (100% "
             << "minus barrier_wait_pct, each run's median) more than "
             << std::lround((kWaitsApartRatio - 1) * 100)
             << "% apart: one arm ran with a slow worker (descheduled by the host, a shared core) that the "
                "other had not, and the others waited for it, so those rounds' ratios carry the worker's "
                "slowness as well as the arms'. The note names the widest pair of waits and the median ratio "
                "of the other rounds; the verdict keeps every round, since a change to the work's split moves "
                "the waits by design.\n";
      }
      if (few) {
        text << "WARNING: " << few << " configuration(s) have fewer than " << kUTestOptimalRepetitions
             << " repetitions on a side; the U test may be unable to show significance. Rerun with more "
                "repetitions.\n";
      }
    }
    if (c.rows.empty()) std::cerr << "kvbench compare: warning: no configuration matched between the two files\n";
    if (!o.out.empty()) {
      write_file_atomically(o.out, text.str(), o.force);
    } else {
      std::cout << text.str();
    }
    if (!o.out.empty() && o.format != "console") {
      // Keep a human summary on the console when the table goes to a file.
      std::cout << "kvbench compare: wrote " << o.out << "\n";
    }
    return c.any_significant_slowdown(o.gate == "all") ? kExitRegression : kExitOk;
  } catch (...) {
    return report_current_exception("compare", kExitBadInput);
  }
}

}  // namespace kvb
