// How close kvbench's kernels came to the machine's own limits in a run, against the
// thresholds the project commits to. Built only from the rows present: a target with no rows
// gives no line; one whose rows lack their partner (ceiling, baseline) says "not measured".
#pragma once
#include <optional>
#include <string>
#include <vector>

#include "analysis/machine_results.h"

namespace kvb {

enum class TargetKind {
  kDramStreaming,  // decode_step, ws >= 4 x LLC: % of the run's DRAM read ceiling, >= 90
  kLlcResident,    // decode_step / attention at the LLC level: % of the run's LLC read ceiling, >= 70
  kGqa,            // ns_per_step at q_heads = G x kv_heads over q_heads = kv_heads (G = 8 or largest <= 8), <= 1.10
  kAppend,         // append ns_per_step over append_memcpy ns_per_step, <= 1.25
  kPrefill,        // prefill_copy (ws >= 4x LLC) GB/s as % of the run's DRAM ceiling_copy, >= 85
  kPrefillStores,  // the same rows' written bytes per second as % of the run's DRAM ceiling_write_nt: informational
  kPeers,          // kvbench GB/s / peer GB/s: informational, no threshold
};

// The GQA target's largest group size (query heads per KV head).
inline constexpr int kMaxTargetGroupSize = 8;
// The bandwidth targets (DRAM, LLC) hold decode of up to this many query heads per KV head to the
// ceilings (the Qwen3-0.6B shape they are set for has 2); larger groups do G fp32 FMAs per cached
// element for K and again for V, and their cost is what the GQA target judges.
inline constexpr int kMaxStreamingGroupSize = 2;
// More query heads per KV head than that: left to the GQA target.
bool beyond_streaming_group(const ResultRow& r);
// The cache level a row's ws_level names when its working set lives in the last-level cache ("L3",
// or "L2" on machines without an L3).
std::string llc_level(const MachineResults& m);

// kUnsettled: the verdict rests on rows their own run doubts. Every row meets the threshold, but
// some only on doubtful evidence (a row above its own read ceiling by more than
// kCeilingDriftFlag, which then did not bound it; a pair whose two rows ran against ceilings that
// far apart, i.e. on a machine in two states; a pair with a row whose core ran slow, see below):
// such rows can keep a line from being met but never make it met. Or every row that misses it
// ran with its core slowed below the run's usual FMA rate or its ceiling (run_ceilings.h: the kernel then
// ran slower than the machine it measures), or is a pair with such a row: such rows can keep a
// line from failing but never make it fail.
enum class Verdict { kMet, kNotMet, kUnsettled, kNotMeasured, kInformational };

struct TargetThreshold {
  std::optional<double> value;  // nullopt: informational
  bool at_least = true;         // true: measured >= value; false: measured <= value
  bool met_by(double measured) const { return !value || (at_least ? measured >= *value : measured <= *value); }
};

TargetThreshold target_threshold(TargetKind kind);
std::string target_name(TargetKind kind);  // "DRAM streaming", ...
bool target_is_percentage(TargetKind kind);  // else a ratio

// One line of the table: the rows of one target, benchmark, dtype and thread count (GQA: and
// group size G), all shapes, contexts, cache states and runs pooled. Lines with nothing
// measured are merged per target, benchmark and G, so they list several dtypes and threads.
struct TargetLine {
  TargetKind kind = TargetKind::kDramStreaming;
  std::string benchmark;     // the kernel judged (peers: the peer's benchmark)
  std::vector<std::string> dtypes;
  std::vector<int> threads;
  int group_size = 0;        // GQA only: the G compared with G = 1
  int measured = 0;          // rows (GQA, append, peers: pairs) with a value
  int met = 0;               // ... of which meet the threshold
  int unmeasured = 0;        // rows without their ceiling or partner row
  int invalid = 0;           // rows that failed validation: left out, and the line is not met
  int ceiling_moved = 0;     // measured rows whose --ceiling-bracket moved > 10% (run_ceilings.h)
  int ceilings_apart = 0;    // measured pairs whose two rows' ceilings differ > 10% (pair_ceilings_note)
  int ceiling_beaten = 0;    // DRAM/LLC rows above (1 + kCeilingDriftFlag) x their own read ceiling
  int core_slowed = 0;       // measured rows (pairs: either row) whose core bracket fell below
                             // their run's usual FMA rate or ceiling (RunCeilings::core_slowed_note)
  int short_of_huge_pages = 0;  // measured rows (pairs: either row) only partly on huge pages
                                // (huge_page_note); their time is the kernel's plus TLB misses
  int met_doubted = 0;       // rows meeting the threshold only on evidence the run doubts
  int missed_doubted = 0;    // rows missing it only on evidence the run doubts
  std::optional<double> worst, best;  // furthest from / closest to the threshold (peers: lowest / highest)
  // DRAM and LLC lines: the same rows judged by their fastest repetition (ceilings report their
  // best repetition): the lowest such value and how many rows it lets meet the threshold.
  std::optional<double> worst_fastest;
  int met_fastest = 0, with_fastest = 0;
  // DRAM, LLC and GQA lines: the value each row would reach if it ran at the machine's measured
  // FP32 FMA peak (its cost model's flops at fma_peak for its thread count), the least favourable
  // over the rows, and how many rows that bound already keeps from the threshold: there the
  // arithmetic, not the kernel, stands in the way. Optimistic: converting narrow dtypes to fp32
  // takes instructions the cost model does not count as flops.
  std::optional<double> peak_bound;
  int beyond_peak = 0;
  // DRAM and LLC lines: the value each row would reach if its bytes streamed at its ceiling and
  // each of its layers added one crossing of its run's ceiling_barrier (the barrier a decode step
  // ends each layer with, crossed back to back: the least a layer's synchronisation costs at the
  // row's thread count), the least favourable over the rows, and how many rows that bound keeps
  // from the threshold: there one barrier per layer, not the kernel, stands in the way.
  std::optional<double> barrier_bound;
  int beyond_barrier = 0;
  const ResultRow* worst_row = nullptr;      // the kernel row of the worst value
  const ResultRow* worst_partner = nullptr;  // its G = 1 / append_memcpy / peer row, if any
  std::string missing;       // what the unmeasured rows lack, e.g. "ceiling_copy in the row's run"
  Verdict verdict = Verdict::kNotMeasured;
};

struct EfficiencyTargets {
  std::vector<TargetLine> lines;
  // decode_step/attention rows the DRAM and LLC targets would pool but leave out because they
  // run more than kMaxStreamingGroupSize query heads per KV head (judged by the GQA target).
  int rows_beyond_streaming_group = 0;
};

// The tables' row order of lines: target, benchmark, dtype (fp32 first), G (descending); thread
// counts are not compared (they are the at-a-glance tables' columns).
bool target_row_before(const TargetLine& a, const TargetLine& b);

// Lines in target order, then benchmark, dtype (fp32 first), threads, G (descending); within a
// target the "not measured" lines come last.
EfficiencyTargets evaluate_targets(const MachineResults& m);

}  // namespace kvb
