#include "benchmarks/machine_probe.h"

#include <cstdio>

#include "benchmarks/usage_error.h"
#include "harness/error.h"
#include "harness/topology.h"
#include "kernels/simd_target.h"

namespace kvb {

MachineFacts probe_machine(const Topology& topo) {
  MachineFacts m;
  m.pus_total = topo.pu_count();
  m.l2_bytes = topo.cache_bytes(2).value_or(0);
  m.llc_bytes = topo.llc_bytes_for({});
  m.mem_bytes = topo.memory_bytes();
  m.mem_available = read_mem_available_bytes();
  if (m.mem_bytes <= 0) m.mem_bytes = read_mem_total_bytes();
  return m;
}

LlcSetting llc_option(const std::string& text) {
  try {
    return parse_llc_setting(text);
  } catch (const HarnessError& e) {
    throw UsageError(e.what());
  }
}

std::string simd_target_option(const std::string& text) {
  if (text == "best" || is_runnable_simd_target(text)) return text;
  throw UsageError("bad value '" + text + "' for --simd-target: expected best, " + runnable_simd_target_list() +
                   " (the targets of this binary that this CPU runs)");
}

void apply_simd_target_option(const std::string& target) {
  if (target != "best") limit_simd_target(target);
}

LlcDecision apply_llc_option(Topology& topo, const LlcSetting& setting) {
  LlcDecision d = apply_llc_setting(topo, setting, read_mem_available_bytes());
  std::fprintf(stderr, "kvbench: %s\n", d.summary.c_str());
  // A measured knee wanders from run to run (results/epyc-zen3-2c-kvm/llc-auto/), and the
  // contexts and ceilings sized from it follow: say how to hold it.
  const bool measuring = setting.policy == LlcPolicy::kAuto || setting.policy == LlcPolicy::kMeasure;
  if (measuring && d.source == "measured")
    std::fprintf(stderr, "kvbench: every run measures again; --llc %s holds this size for a series of runs\n",
                 llc_option_value(d.bytes).c_str());
  if (setting.policy == LlcPolicy::kRecorded)
    std::fprintf(stderr, "kvbench: --llc auto keeps the LLC of the file it adds to; --llc measure measures "
                 "again\n");
  return d;
}

}  // namespace kvb
