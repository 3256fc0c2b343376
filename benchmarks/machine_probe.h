// MachineFacts of this machine, from the harness topology (hwloc) and /proc/meminfo.
#pragma once
#include "benchmarks/machine_facts.h"

namespace kvb {

class Topology;

MachineFacts probe_machine(const Topology& topo);

}  // namespace kvb
