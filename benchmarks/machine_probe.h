// MachineFacts of this machine, from the harness topology (hwloc) and /proc/meminfo.
#pragma once
#include <string>

#include "benchmarks/machine_facts.h"
#include "harness/llc_probe.h"

namespace kvb {

class Topology;

MachineFacts probe_machine(const Topology& topo);

// --llc of run, topo, ceilings and size: the setting its text names (a bad value is a
// UsageError), and that setting applied to topo against this machine's MemAvailable, what it
// chose said on stderr (harness/llc_probe). Call before probe_machine.
LlcSetting llc_option(const std::string& text);
LlcDecision apply_llc_option(Topology& topo, const LlcSetting& setting);

// --simd-target of run and ceilings: the text itself when it is "best" or a target this binary
// runs here (kernels/simd_target.h); anything else is a UsageError listing those.
std::string simd_target_option(const std::string& text);
// Caps the kernels' and ceilings' dispatch at that target (nothing for "best"). Call before
// anything is measured, the LLC probe included.
void apply_simd_target_option(const std::string& target);

}  // namespace kvb
