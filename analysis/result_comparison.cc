#include "analysis/result_comparison.h"

#include <algorithm>
#include <cmath>
#include <iterator>
#include <map>
#include <optional>
#include <set>
#include <tuple>

#include "analysis/barrier_wait.h"
#include "analysis/ceiling_change.h"
#include "analysis/machine_results.h"
#include "analysis/run_ceilings.h"

namespace kvb {

const char* verdict_name(Verdict v) {
  switch (v) {
    case Verdict::kFaster: return "faster";
    case Verdict::kSlower: return "slower";
    case Verdict::kSame: return "same";
  }
  return "?";
}

std::optional<double> ComparedConfig::p_value() const {
  if (paired()) return paired_p;
  if (utest) return utest->p_value;
  return std::nullopt;
}

bool Comparison::any_significant_slowdown(bool count_ceilings) const {
  return std::any_of(rows.begin(), rows.end(), [count_ceilings](const ComparedConfig& c) {
    return c.verdict == Verdict::kSlower && c.significant && (count_ceilings || !c.base_example->is_ceiling());
  });
}

std::vector<Col> match_columns(MatchThreads mode) {
  std::vector<Col> cols;
  for (Col c : kConfigColumns) {
    if (mode == MatchThreads::kMax && (c == Col::threads || c == Col::pin)) continue;
    cols.push_back(c);
  }
  return cols;
}

namespace {

struct Group {
  std::vector<const ResultRow*> repetitions;
  const ResultRow* median_row = nullptr;
  int threads = 0;
};

using Files = std::vector<const std::vector<ResultRow>*>;

// Configuration key -> repetitions (of all the files), keeping only the largest thread count per
// key under kMax.
std::map<std::string, Group> group_rows(const Files& files, MatchThreads mode) {
  const auto key_cols = match_columns(mode);
  // A configuration measured at several working sets (a ceiling swept over buffer sizes within
  // one cache level) is split by working set; otherwise the working set is left out of the key
  // so that CPUs whose sweeps chose different buffer sizes still match level by level.
  std::map<std::string, std::set<std::string>> working_sets;
  for (const auto* rows : files)
    for (const ResultRow& r : *rows) working_sets[join_columns(r, key_cols)].insert(r.str(Col::working_set_bytes));
  std::map<std::string, Group> groups;
  for (const auto* rows : files)
  for (const ResultRow& r : *rows) {
    if (!r.is_repetition() && !r.is_median()) continue;
    if (!r.num(Col::ns_per_step)) continue;
    const int threads = static_cast<int>(r.num_or(Col::threads, 0));
    std::string key = join_columns(r, key_cols);
    if (working_sets[key].size() > 1) key += " working_set_bytes=" + r.str(Col::working_set_bytes);
    Group& g = groups[key];
    if (mode == MatchThreads::kMax && threads != g.threads && (!g.repetitions.empty() || g.median_row)) {
      if (threads < g.threads) continue;
      g = Group{};  // a larger thread count replaces what we had
    }
    g.threads = threads;
    if (r.is_repetition()) {
      g.repetitions.push_back(&r);
    } else if (!g.median_row) {
      g.median_row = &r;
    }
  }
  return groups;
}

// Repetition values of a column; a run that wrote only aggregates contributes its median.
std::vector<double> values(const Group& g, Col c) {
  std::vector<double> v;
  for (const ResultRow* r : g.repetitions) {
    if (c == Col::gbps) {
      if (auto x = attained_gbps(*r)) v.push_back(*x);
    } else if (auto x = r->num(c)) {
      v.push_back(*x);
    }
  }
  if (g.repetitions.empty() && g.median_row) {
    if (c == Col::gbps) {
      if (auto x = attained_gbps(*g.median_row)) v.push_back(*x);
    } else if (auto x = g.median_row->num(c)) {
      v.push_back(*x);
    }
  }
  return v;
}

std::set<std::string> distinct(const Files& files, Col c) {
  std::set<std::string> s;
  for (const auto* rows : files)
    for (const auto& r : *rows) s.insert(r.str(c));
  return s;
}

std::string join(const std::set<std::string>& s) {
  std::string out;
  for (const auto& v : s) out += (out.empty() ? "'" : ", '") + v + "'";
  return out;
}

// The LLC each run sized itself from, per thread count: "bytes (source)". Rows of files from
// before llc_source was written read as hwloc's.
std::map<std::string, std::set<std::string>> llc_by_threads(const Files& files) {
  std::map<std::string, std::set<std::string>> out;
  for (const auto* rows : files)
  for (const ResultRow& r : *rows) {
    if (r.str(Col::llc_bytes).empty()) continue;
    const std::string source = r.str(Col::llc_source).empty() ? "hwloc" : r.str(Col::llc_source);
    out[r.str(Col::threads)].insert(r.str(Col::llc_bytes) + " (" + source + ")");
  }
  return out;
}

// Two runs of one machine can size their LLC differently (`--llc auto` measured in one and kept
// hwloc's in the other, or another `--llc`); context = auto and the ceilings' working sets
// follow it, so their rows stop matching. Named at the first thread count both ran.
std::optional<std::string> llc_difference(const Files& base, const Files& next) {
  const auto a = llc_by_threads(base), b = llc_by_threads(next);
  for (const auto& [threads, sizes] : a) {
    const auto it = b.find(threads);
    if (it == b.end() || it->second == sizes) continue;
    return "llc_bytes at " + threads + " threads: base " + join(sizes) + " vs new " + join(it->second) +
           " (context = auto and the ceilings' working sets are sized from it; --llc SIZE fixes it)";
  }
  return std::nullopt;
}

// One side's runs' ceilings, to look a kernel row's own run's barrier crossing up.
class SideCeilings {
 public:
  explicit SideCeilings(const Files& files) {
    std::vector<ResultRow> rows;
    for (const auto* f : files) rows.insert(rows.end(), f->begin(), f->end());
    for (const MachineResults& m : group_by_machine(rows)) machines_.emplace_back(m);
  }
  // Median over the group's runs of each run's crossing at the row's threads and pinning; nullopt
  // for ceilings, one thread, or runs that did not measure it.
  std::optional<double> barrier_ns(const Group& g) const {
    std::vector<double> ns;
    for (const auto& [run, ends] : run_crossings(g)) ns.push_back(ends.first);
    return median(ns);
  }
  // The least and the most of every crossing of the group's runs, at either end of a run, and of
  // its bracketed rows' own (barrier_before_ns, barrier_after_ns).
  std::optional<std::pair<double, double>> crossing_span(const Group& g) const {
    std::optional<std::pair<double, double>> span;
    const auto fold = [&span](std::optional<double> x) {
      if (!x || !(*x > 0)) return;
      span = span ? std::pair(std::min(span->first, *x), std::max(span->second, *x)) : std::pair(*x, *x);
    };
    for (const auto& [run, ends] : run_crossings(g)) {
      fold(ends.first);
      fold(ends.second);
    }
    if (g.threads < 2) return span;
    std::vector<const ResultRow*> rows = g.repetitions;
    if (g.median_row) rows.push_back(g.median_row);
    for (const ResultRow* r : rows) {
      if (r->is_ceiling()) return std::nullopt;
      fold(r->num(Col::barrier_before_ns));
      fold(r->num(Col::barrier_after_ns));
    }
    return span;
  }
  // Of the group's rows with a core bracket (repetitions, or its median row without any), how many
  // there are and how many ran with a slowed core. A row's own run is on one machine; another
  // machine's RunCeilings lacks that run's FMA ceiling and so never notes more than the right one.
  std::pair<int, int> core_slowed(const Group& g) const {
    std::vector<const ResultRow*> rows = g.repetitions;
    if (rows.empty() && g.median_row) rows.push_back(g.median_row);
    int bracketed = 0, slowed = 0;
    for (const ResultRow* r : rows) {
      if (r->is_ceiling() || !r->num(Col::core_before_gflops)) continue;
      ++bracketed;
      slowed += std::any_of(machines_.begin(), machines_.end(),
                            [r](const RunCeilings& m) { return !m.core_slowed_note(*r).empty(); });
    }
    return {bracketed, slowed};
  }
  // Of the group's runs, how many measured the crossing at both ends, and in how many the two lie
  // further apart than kBarrierMovedRatio (the host moved the vCPUs while the rows ran).
  std::pair<int, int> runs_moved_midway(const Group& g) const {
    int both = 0, moved = 0;
    for (const auto& [run, ends] : run_crossings(g)) {
      if (!ends.second) continue;
      ++both;
      moved += crossings_apart(ends.first, *ends.second);
    }
    return {both, moved};
  }

 private:
  // run_id|threads|pin -> the run's crossing at its start and, where measured, its end; empty for
  // ceilings, one thread, or runs that did not measure it.
  std::map<std::string, std::pair<double, std::optional<double>>> run_crossings(const Group& g) const {
    std::map<std::string, std::pair<double, std::optional<double>>> by_run;
    if (g.threads < 2) return by_run;
    std::vector<const ResultRow*> rows = g.repetitions;
    if (rows.empty() && g.median_row) rows.push_back(g.median_row);
    for (const ResultRow* r : rows) {
      if (r->is_ceiling()) return {};
      for (const RunCeilings& m : machines_) {
        if (const auto ns = m.barrier_ns(*r)) {
          const std::string run = r->str(Col::run_id) + "|" + r->str(Col::threads) + "|" + r->str(Col::pin);
          by_run[run] = {*ns, m.barrier_end_ns(*r)};
          break;
        }
      }
    }
    return by_run;
  }

  std::vector<RunCeilings> machines_;
};

// Significance and verdict of every configuration, once all of them have their tests: the
// adjustment reads the p-values together.
void judge(Comparison& out, const CompareOptions& options) {
  std::vector<double> p;
  for (const ComparedConfig& c : out.rows)
    if (auto x = c.p_value()) p.push_back(*x);
  if (options.p_adjust == PAdjust::kHolm) p = holm_adjusted(p);
  std::size_t next = 0;
  for (ComparedConfig& c : out.rows) {
    // Without a test (one repetition) the verdict follows the threshold alone, but it is never
    // "significant", so it cannot fail CI on its own.
    const bool tested = c.p_value().has_value();
    c.p_adjusted = tested ? std::optional<double>(p[next++]) : std::nullopt;
    c.significant = tested && *c.p_adjusted < options.alpha;
    const bool decisive = c.significant || !tested;
    c.verdict = Verdict::kSame;
    if (decisive && c.change > options.threshold) {
      c.verdict = Verdict::kSlower;
    } else if (decisive && c.change < -options.threshold) {
      c.verdict = Verdict::kFaster;
    }
  }
}

Files addresses(const std::vector<std::vector<ResultRow>>& files) {
  Files out;
  for (const auto& f : files) out.push_back(&f);
  return out;
}

// The pooled comparison of every file of one side against every file of the other.
Comparison compare_files(const Files& base_files, const Files& new_files, const SideCeilings& base_ceilings,
                         const SideCeilings& new_ceilings, const CompareOptions& options) {
  Comparison out;
  // The CPU differs when its model string, signature or cache sizes do: guests often report a
  // bare "AMD EPYC" for different designs. A file from before the cpu_signature column has it
  // empty, which is not a difference, nor is a cache size left empty where hwloc saw no such
  // cache in a run (the 2-vCPU Zen 5 guest's L3 was missing in 6 of 29 runs within an hour).
  constexpr Col kEnvironment[] = {Col::cpu_model, Col::cpu_signature, Col::l1d_bytes, Col::l2_bytes,
                                  Col::l3_bytes,  Col::isa,           Col::compiler,  Col::kvbench_version};
  constexpr std::size_t kCpuColumns = 5;  // the first five name the CPU
  for (std::size_t i = 0; i < std::size(kEnvironment); ++i) {
    const Col c = kEnvironment[i];
    const auto a = distinct(base_files, c), b = distinct(new_files, c);
    const bool unknown_allowed =
        c == Col::cpu_signature || c == Col::l1d_bytes || c == Col::l2_bytes || c == Col::l3_bytes;
    if (unknown_allowed && (a.count("") || b.count(""))) continue;
    if (a != b) {
      out.environment_differences.push_back(std::string(column_name(c)) + ": base " + join(a) + " vs new " + join(b));
      if (i < kCpuColumns) out.cpu_differs = true;
    }
  }
  if (!out.cpu_differs)  // other CPUs have other caches: l3_bytes already says so
    if (auto llc = llc_difference(base_files, new_files)) out.environment_differences.push_back(*llc);
  const auto base_groups = group_rows(base_files, options.match_threads);
  const auto new_groups = group_rows(new_files, options.match_threads);
  for (const auto& [key, bg] : base_groups) {
    const ResultRow* example = bg.repetitions.empty() ? bg.median_row : bg.repetitions.front();
    auto it = new_groups.find(key);
    if (it == new_groups.end()) {
      out.only_in_base.push_back(example);
      continue;
    }
    const Group& ng = it->second;
    ComparedConfig c;
    c.key = key;
    c.base_example = example;
    c.new_example = ng.repetitions.empty() ? ng.median_row : ng.repetitions.front();
    const auto base_ns = values(bg, Col::ns_per_step);
    const auto new_ns = values(ng, Col::ns_per_step);
    c.base_n = base_ns.size();
    c.new_n = new_ns.size();
    c.base_ns = *median(base_ns);
    c.new_ns = *median(new_ns);
    c.base_gbps = median(values(bg, Col::gbps));
    c.new_gbps = median(values(ng, Col::gbps));
    c.base_wait_pct = median(values(bg, Col::barrier_wait_pct));
    c.new_wait_pct = median(values(ng, Col::barrier_wait_pct));
    c.base_ceiling_gbps = median(values(bg, Col::ceiling_gbps));
    c.new_ceiling_gbps = median(values(ng, Col::ceiling_gbps));
    c.base_pct = median(values(bg, Col::pct_of_ceiling));
    c.new_pct = median(values(ng, Col::pct_of_ceiling));
    c.base_barrier_ns = base_ceilings.barrier_ns(bg);
    c.new_barrier_ns = new_ceilings.barrier_ns(ng);
    const auto [base_both, base_moved] = base_ceilings.runs_moved_midway(bg);
    const auto [new_both, new_moved] = new_ceilings.runs_moved_midway(ng);
    c.runs_crossing_both_ends = base_both + new_both;
    c.runs_moved_midway = base_moved + new_moved;
    std::tie(c.base_core_bracketed, c.base_core_slowed) = base_ceilings.core_slowed(bg);
    std::tie(c.new_core_bracketed, c.new_core_slowed) = new_ceilings.core_slowed(ng);
    c.time_ratio = c.base_ns > 0 ? c.new_ns / c.base_ns : NAN;
    c.change = c.time_ratio - 1;
    const double base_best = *std::min_element(base_ns.begin(), base_ns.end());
    c.best_ratio = base_best > 0 ? *std::min_element(new_ns.begin(), new_ns.end()) / base_best : NAN;
    c.utest = mann_whitney_u(base_ns, new_ns);
    c.few_repetitions = std::min(c.base_n, c.new_n) < kUTestOptimalRepetitions;
    out.rows.push_back(c);
  }
  for (const auto& [key, ng] : new_groups) {
    if (!base_groups.count(key)) out.only_in_new.push_back(ng.repetitions.empty() ? ng.median_row : ng.repetitions.front());
  }
  return out;
}

void sort_by_change(Comparison& c) {
  std::stable_sort(c.rows.begin(), c.rows.end(),
                   [](const ComparedConfig& a, const ComparedConfig& b) { return a.change > b.change; });
}

// One round of a configuration against the arms' waits at the per-layer barriers (each run's
// median barrier_wait_pct): counts it, and where they lie waits_apart keeps the widest pair;
// otherwise its ratio joins `same_waits`.
void count_round_waits(ComparedConfig& c, const Group& base, const Group& next, double round_ratio,
                       std::vector<double>& same_waits) {
  if (base.threads < 2 || next.threads < 2) return;
  const auto base_wait = median(values(base, Col::barrier_wait_pct));
  const auto new_wait = median(values(next, Col::barrier_wait_pct));
  if (!base_wait || !new_wait) return;
  ++c.rounds_wait_measured;
  if (!waits_apart(*base_wait, *new_wait)) {
    same_waits.push_back(round_ratio);
    return;
  }
  const double low = std::min(*base_wait, *new_wait), high = std::max(*base_wait, *new_wait);
  if (c.rounds_waited_apart++ == 0 || high - low > c.wait_apart_high - c.wait_apart_low) {
    c.wait_apart_low = low;
    c.wait_apart_high = high;
  }
}

}  // namespace

Comparison compare_results(const std::vector<ResultRow>& base, const std::vector<ResultRow>& next,
                           const CompareOptions& options) {
  const Files base_files{&base}, new_files{&next};
  Comparison out = compare_files(base_files, new_files, SideCeilings(base_files), SideCeilings(new_files), options);
  judge(out, options);
  sort_by_change(out);
  return out;
}

Comparison compare_rounds(const std::vector<std::vector<ResultRow>>& base,
                          const std::vector<std::vector<ResultRow>>& next, const CompareOptions& options) {
  const Files base_files = addresses(base), new_files = addresses(next);
  const SideCeilings base_ceilings(base_files), new_ceilings(new_files);  // once for both uses
  Comparison out = compare_files(base_files, new_files, base_ceilings, new_ceilings, options);
  if (base.size() == next.size() && base.size() >= 2) {
    out.rounds = base.size();
    std::vector<std::map<std::string, Group>> base_rounds, new_rounds;
    for (std::size_t i = 0; i < base.size(); ++i) {
      base_rounds.push_back(group_rows({&base[i]}, options.match_threads));
      new_rounds.push_back(group_rows({&next[i]}, options.match_threads));
    }
    for (ComparedConfig& c : out.rows) {
      std::vector<double> same_placement, same_waits;
      for (std::size_t i = 0; i < base.size(); ++i) {
        const auto b = base_rounds[i].find(c.key), n = new_rounds[i].find(c.key);
        if (b == base_rounds[i].end() || n == new_rounds[i].end()) continue;
        const auto base_ns = median(values(b->second, Col::ns_per_step)), new_ns = median(values(n->second, Col::ns_per_step));
        if (!base_ns || !new_ns || !(*base_ns > 0)) continue;
        c.round_ratios.push_back(*new_ns / *base_ns);
        count_round_waits(c, b->second, n->second, c.round_ratios.back(), same_waits);
        const auto base_pct = median(values(b->second, Col::pct_of_ceiling));
        const auto new_pct = median(values(n->second, Col::pct_of_ceiling));
        if (base_pct && new_pct && *new_pct > 0) c.round_held_ratios.push_back(*base_pct / *new_pct);
        const auto base_x = base_ceilings.crossing_span(b->second), new_x = new_ceilings.crossing_span(n->second);
        if (!base_x || !new_x) continue;
        ++c.rounds_crossing_measured;
        if (crossings_apart(std::min(base_x->first, new_x->first), std::max(base_x->second, new_x->second))) {
          ++c.rounds_placed_apart;
        } else {
          same_placement.push_back(c.round_ratios.back());
        }
      }
      if (c.rounds_placed_apart > 0) c.same_placement_ratio = median(same_placement);
      if (c.rounds_waited_apart > 0) c.same_waits_ratio = median(same_waits);
      if (c.round_held_ratios.size() >= 2) c.held_ratio = median(c.round_held_ratios);
      if (!c.paired()) continue;
      c.time_ratio = *median(c.round_ratios);
      c.change = c.time_ratio - 1;
      c.paired_p = paired_ratio_p_value(c.round_ratios);
      c.few_repetitions = false;  // the rounds are the sample, not the repetitions
    }
  }
  judge(out, options);
  sort_by_change(out);
  return out;
}

}  // namespace kvb
