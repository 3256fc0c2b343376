// kvbench topo: what hwloc sees (caches, PUs, memory) and where it disagrees with the OS.
#include <iostream>

#include <boost/program_options.hpp>

#include "benchmarks/commands.h"
#include "benchmarks/machine_probe.h"
#include "benchmarks/option_parser.h"
#include "harness/topology.h"

namespace kvb {
namespace po = boost::program_options;

int topo_main(const std::vector<std::string>& args) {
  po::options_description desc("kvbench topo: machine topology as kvbench sizes it\n\n"
                               "Usage: kvbench topo");
  desc.add_options()("help,h", "this help");
  po::variables_map vm;
  if (parse_layered_or_help(args, desc, &vm, "custom")) return 0;
  const auto topo = Topology::discover();
  std::cout << topo->describe();
  const MachineFacts m = probe_machine(*topo);
  std::cout << "\nkvbench sizing: L2 " << m.l2_bytes << " bytes per instance, LLC " << m.llc_bytes
            << " bytes, MemAvailable " << m.mem_available << " bytes, " << m.pus_total << " PUs\n";
  for (const std::string& d : topo->os_disagreements()) std::cout << "note: " << d << "\n";
  return 0;
}

}  // namespace kvb
