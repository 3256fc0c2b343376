#include "benchmarks/machine_probe.h"

#include "harness/topology.h"

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

}  // namespace kvb
