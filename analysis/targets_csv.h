// The report's efficiency lines as CSV (`kvbench report` writes DIR/targets.csv beside
// report.md): one row per machine and line, every value in full, for dashboards and for tracking
// verdicts across commits and CPUs without parsing Markdown.
#pragma once
#include <string>
#include <vector>

#include "analysis/efficiency_targets.h"
#include "analysis/machine_results.h"

namespace kvb {

// targets[i] are the lines of ms[i] (evaluate_targets). Columns: machine, cpu_model,
// cpu_signature, host, target (dram_streaming, llc_resident, gqa, append, prefill,
// prefill_stores, peers), benchmark, dtype and threads ('+'-joined where a "not measured" line
// merges several), group_size (GQA), rows, rows_met, worst, best, threshold, direction
// (at_least, at_most; empty for informational lines), verdict (met, not_met, unsettled,
// not_measured, informational), then the worst row's shape, context, cache_state and run_id.
std::string targets_csv(const std::vector<MachineResults>& ms, const std::vector<EfficiencyTargets>& targets);

}  // namespace kvb
