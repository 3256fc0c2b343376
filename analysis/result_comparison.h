// Compares two sets of results configuration by configuration: medians of per-repetition
// ns_per_step, their ratio and a two-sided Mann-Whitney U test. The core of `kvbench compare`.
#pragma once
#include <optional>
#include <string>
#include <vector>

#include "analysis/result_table.h"
#include "analysis/statistics.h"

namespace kvb {

enum class MatchThreads { kExact, kMax };  // kMax: each side at its largest thread count
enum class Verdict { kFaster, kSlower, kSame };
const char* verdict_name(Verdict v);

// How the p-values of one comparison's configurations are read together. kHolm: Holm's
// adjustment over every tested configuration, so a comparison of two identical builds flags no
// configuration at all with probability >= 1 - alpha, however many rows it holds. The per-row
// test alone (kNone) flags about alpha of them: 6 of 9 A/Bs of two builds of one source flagged
// a row that way, none after Holm (results/xeon-emr-16c-kvm/layout).
enum class PAdjust { kHolm, kNone };

struct CompareOptions {
  double threshold = 0.05;  // |change| below this is "same"
  double alpha = 0.05;      // significance level, after p_adjust
  PAdjust p_adjust = PAdjust::kHolm;
  MatchThreads match_threads = MatchThreads::kExact;
};

struct ComparedConfig {
  std::string key;                          // the configuration's match key
  const ResultRow* base_example = nullptr;  // a row of each side, for the configuration columns
  const ResultRow* new_example = nullptr;
  std::size_t base_n = 0, new_n = 0;        // repetitions
  double base_ns = 0, new_ns = 0;           // medians
  std::optional<double> base_gbps, new_gbps;  // medians
  std::optional<double> base_wait_pct, new_wait_pct;  // medians of barrier_wait_pct (decode rows
                                                      // of 2 or more threads)
  std::optional<double> base_ceiling_gbps, new_ceiling_gbps;  // medians of ceiling_gbps (each
                                                              // row's own run's read ceiling)
  std::optional<double> base_pct, new_pct;                    // medians of pct_of_ceiling
  // Kernel rows of 2 or more threads: the median over each side's runs of the run's
  // ceiling_barrier (one crossing of the per-layer barrier, ns) at the row's threads and pinning;
  // nullopt where no run of that side measured it.
  std::optional<double> base_barrier_ns, new_barrier_ns;
  // Of both sides' runs of such a row, how many measured the crossing again after their last
  // benchmark (ceiling_barrier_end), and in how many the two ends lie further apart than
  // kBarrierMovedRatio: the host moved the vCPUs while that run's rows ran.
  int runs_crossing_both_ends = 0, runs_moved_midway = 0;
  // Of each side's rows with a core bracket (`--ceiling-bracket`: core_before_gflops), how many
  // ran with a slowed core (RunCeilings::core_slowed_note: the workers' FMA burst more than 10%
  // below their run's usual FMA rate or 25% below its ceiling, or one worker more than 10% below
  // the fastest): there the machine, not the code, slowed the row.
  int base_core_bracketed = 0, base_core_slowed = 0, new_core_bracketed = 0, new_core_slowed = 0;
  double time_ratio = 1;                    // new / base
  double change = 0;                        // time_ratio - 1 (> 0: slower)
  // Fastest repetition of new over fastest of base, over every run of each side. On a shared
  // host a repetition is slowed, never sped up, by the other tenants, so the fastest is what the
  // code did with the machine to itself. Where the machine moves between two states within
  // minutes, the median ratio can follow the states: a 2-vCPU guest's int8 decode_step ran 24 or
  // 36 ms by turns, and 8 and 12 rounds of two arms of one build (a scratch knob set on one) read
  // 0.86 and 1.09 while their fastest repetitions read 1.005 and 1.001
  // (results/xeon-emr-2c-kvm/barrier-slack/). One minimum is noisy too, where every repetition
  // shares a busy machine (analysis/README.md).
  // Informational: the verdict comes from the medians and the test.
  double best_ratio = 1;
  std::optional<UTestResult> utest;         // nullopt: too few repetitions for any test
  std::optional<double> p_adjusted;         // the test's p after CompareOptions::p_adjust
  bool significant = false;                 // p_adjusted < alpha
  bool few_repetitions = false;             // < kUTestOptimalRepetitions on a side
  Verdict verdict = Verdict::kSame;
  // Rounds (compare_rounds): new / base of each round's medians, in round order, over the rounds
  // that ran the configuration on both sides, and paired_ratio_p_value of them. With 2 or more,
  // they decide: time_ratio is their median and paired_p the test.
  std::vector<double> round_ratios;
  std::optional<double> paired_p;
  // Of those rounds, how many had the per-layer barrier's crossing measured by both runs, and in
  // how many of them the least and the most of the round's crossings (both runs, at each run's
  // start and, where measured, its end and around the row itself with --ceiling-bracket) were
  // further apart than kBarrierMovedRatio: the arms, or one arm's rows, ran on different vCPU
  // placements in that round (multi-threaded rows only).
  int rounds_crossing_measured = 0, rounds_placed_apart = 0;
  // Where some rounds were placed apart: the median ratio of the rounds whose two crossings were
  // not (nullopt without any). Informational: the verdict keeps every round, since a change to
  // the barrier itself would move every round's crossings apart by design.
  std::optional<double> same_placement_ratio;
  // Of the rounds, how many had both runs' median barrier_wait_pct (decode rows of 2 or more
  // threads), and in how many they were waits_apart: one arm ran with a slow worker the other
  // had not. wait_apart_low and _high: the lesser and the greater wait of the round that lay
  // furthest apart; same_waits_ratio the median ratio of the other rounds (nullopt without any).
  // Informational, as the placement's: a change to the partition moves the waits by design.
  int rounds_wait_measured = 0, rounds_waited_apart = 0;
  double wait_apart_low = 0, wait_apart_high = 0;
  std::optional<double> same_waits_ratio;
  // Each round's base pct_of_ceiling over its new one (medians of each run's rows), in round
  // order, where both runs held the configuration's rows to a ceiling: the round's ratio with each
  // arm held to the bandwidth its own run measured (with --ceiling-bracket, right around the row).
  // held_ratio is their median, with 2 or more. Informational: where the machine's bandwidth
  // drifts between runs it moves less than the time (the EMR host's 2-thread L3 rows, 12 rounds of
  // one build: 0.80-1.09 against 0.75-1.18; results/xeon-emr-16c-kvm/row-spread/).
  std::vector<double> round_held_ratios;
  std::optional<double> held_ratio;
  bool paired() const { return round_ratios.size() >= 2; }
  // The test that judges the configuration: the paired rounds' where there are 2 or more, else
  // the U test's; nullopt if untested.
  std::optional<double> p_value() const;
};

struct Comparison {
  std::vector<ComparedConfig> rows;           // sorted by change, largest slowdown first
  std::vector<const ResultRow*> only_in_base; // one example row per unmatched configuration
  std::vector<const ResultRow*> only_in_new;
  std::vector<std::string> environment_differences;  // "cpu_model: 'A' vs 'B'"
  bool cpu_differs = false;
  std::size_t rounds = 0;  // compare_rounds: runs paired as rounds (0: pooled, or one run a side)
  // Whether some configuration is significantly slower; ceiling_* rows count only with
  // `count_ceilings` (they measure the machine, not the code).
  bool any_significant_slowdown(bool count_ceilings = true) const;
};

// Configuration key used for matching (threads and pin dropped under MatchThreads::kMax).
std::vector<Col> match_columns(MatchThreads mode);

Comparison compare_results(const std::vector<ResultRow>& base, const std::vector<ResultRow>& next,
                           const CompareOptions& options);

// Several runs a side. Their rows are pooled (repetitions of every run of a side). Where both sides
// have the same number of runs (2 or more), base[i] and next[i] are round i: two runs taken back
// to back (builds or settings alternating), so each round's ratio sees one state of a machine
// that drifts between rounds more than within one. A configuration found in 2 or more rounds is
// judged on those rounds' ratios, not on the pooled repetitions.
Comparison compare_rounds(const std::vector<std::vector<ResultRow>>& base,
                          const std::vector<std::vector<ResultRow>>& next, const CompareOptions& options);

}  // namespace kvb
