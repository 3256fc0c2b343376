// kvbench topo: what hwloc sees (caches, PUs, memory) and where it disagrees with the OS.
#include <cstdio>
#include <iostream>

#include <boost/program_options.hpp>

#include "benchmarks/commands.h"
#include "benchmarks/machine_probe.h"
#include "benchmarks/option_parser.h"
#include "harness/topology.h"
#include "kernels/simd_target.h"

namespace kvb {
namespace po = boost::program_options;

int topo_main(const std::vector<std::string>& args) {
  po::options_description desc("kvbench topo: machine topology as kvbench sizes it\n\n"
                               "Usage: kvbench topo");
  desc.add_options()("help,h", "this help")
      ("llc", po::value<std::string>()->default_value("auto"),
       "LLC size kvbench sizes from: auto, hwloc, measure (prints one core's read bandwidth "
       "curve), or a size such as 32MiB");
  po::variables_map vm;
  if (parse_layered_or_help(args, desc, &vm, "custom")) return 0;
  const LlcSetting setting = llc_option(vm["llc"].as<std::string>());  // a bad value prints nothing
  const auto topo = Topology::discover();
  std::cout << topo->describe();
  const LlcDecision llc = apply_llc_option(*topo, setting);
  if (!llc.curve.empty()) {
    std::cout << "\none core's read bandwidth (the LLC probe):\n";
    for (const ReadPoint& p : llc.curve) {
      char line[96];
      std::snprintf(line, sizeof line, "  %10.1f MiB %8.1f GB/s\n", static_cast<double>(p.bytes) / double(1 << 20),
                    p.gbps);
      std::cout << line;
    }
  }
  std::cout << "\nLLC: " << llc.summary << "\n";
  const MachineFacts m = probe_machine(*topo);
  std::cout << "\nkvbench sizing: L2 " << m.l2_bytes << " bytes per instance, LLC " << m.llc_bytes
            << " bytes, MemAvailable " << m.mem_available << " bytes, " << m.pus_total << " PUs\n";
  std::cout << "SIMD targets this binary runs here, best first (kvbench run --simd-target):";
  for (const std::string& t : runnable_simd_targets()) std::cout << " " << t;
  std::cout << "\n";
  for (const std::string& d : topo->os_disagreements()) std::cout << "note: " << d << "\n";
  return 0;
}

}  // namespace kvb
