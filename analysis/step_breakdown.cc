#include "analysis/step_breakdown.h"

#include "analysis/efficiency_targets.h"
#include "analysis/run_ceilings.h"

namespace kvb {

std::vector<StepBreakdown> break_down_llc_steps(const MachineResults& m) {
  const RunCeilings ceilings(m);
  const std::string llc = llc_level(m);
  std::vector<StepBreakdown> out;
  for (const ResultRow& r : m.summaries) {
    const std::string& bench = r.str(Col::benchmark);
    if ((bench != "decode_step" && bench != "attention") || r.str(Col::ws_level) != llc ||
        beyond_streaming_group(r))
      continue;
    const auto ns = r.num(Col::ns_per_step), layers = r.num(Col::layers), gbps = attained_gbps(r);
    const auto ceiling = ceilings.read_gbps(r, llc);
    const auto crossing = ceilings.barrier_ns(r);
    if (!ns || !(*ns > 0) || !layers || !gbps || !ceiling || !(*ceiling > 0) || !crossing) continue;
    StepBreakdown b;
    b.row = &r;
    b.step_ns = *ns;
    b.layers = *layers;
    b.streaming_ns = *ns * *gbps / *ceiling;
    b.crossings_ns = *layers * *crossing;
    if (const auto wait = r.num(Col::barrier_wait_pct)) {
      b.waiting_ns = *ns * *wait / 100;
    } else if (r.num_or(Col::threads, 0) == 1) {
      b.waiting_ns = 0.0;  // one worker waits for no one
    }
    b.rest_ns = b.step_ns - b.streaming_ns - b.crossings_ns - b.waiting_ns.value_or(0);
    out.push_back(b);
  }
  return out;
}

}  // namespace kvb
