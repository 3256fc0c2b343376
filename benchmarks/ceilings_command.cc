// kvbench ceilings: read/write/non-temporal-write/copy bandwidth at every cache level, peak FMA
// and the per-layer barrier's crossing, for one thread count and pinning, printed as a table
// (kvbench run writes them to the CSV as ceiling_* rows); or, with --barrier-pairs, that crossing
// between every two of the pool's PUs.
#include <algorithm>
#include <cstdio>
#include <iostream>
#include <string>
#include <vector>

#include <boost/program_options.hpp>

#include "benchmarks/commands.h"
#include "benchmarks/machine_probe.h"
#include "benchmarks/option_parser.h"
#include "benchmarks/usage_error.h"
#include "benchmarks/value_list.h"
#include "harness/ceilings.h"
#include "harness/error.h"
#include "harness/metadata.h"
#include "harness/pin_policy.h"
#include "harness/thread_pool.h"
#include "harness/topology.h"
#include "kernels/attention.h"  // simd_target_name
#include "kernels/sw_prefetch.h"

namespace kvb {
namespace po = boost::program_options;

namespace {

// Rows and columns are PUs; each cell one crossing in ns. Then the spread, which tells PUs that
// share a cache from those that do not.
void print_barrier_pairs(const std::vector<unsigned>& pus, const std::vector<std::vector<double>>& ns) {
  std::printf("ceiling_barrier between two PUs, ns per crossing\n%6s", "PU");
  for (unsigned pu : pus) std::printf(" %6u", pu);
  std::printf("\n");
  std::vector<double> all;
  for (std::size_t i = 0; i < pus.size(); ++i) {
    std::printf("%6u", pus[i]);
    for (std::size_t j = 0; j < pus.size(); ++j) {
      if (i == j) {
        std::printf(" %6s", "-");
        continue;
      }
      std::printf(" %6.0f", ns[i][j]);
      if (j > i) all.push_back(ns[i][j]);
    }
    std::printf("\n");
  }
  std::sort(all.begin(), all.end());
  std::printf("pairs %zu: least %.0f ns, median %.0f ns, most %.0f ns\n", all.size(), all.front(),
              all[all.size() / 2], all.back());
}

}  // namespace

int ceilings_main(const std::vector<std::string>& args) {
  po::options_description desc("kvbench ceilings: measured hardware ceilings\n\n"
                               "Usage: kvbench ceilings [--threads N|all] [--pin P] [--simd-target T]");
  desc.add_options()
      ("help,h", "this help")
      ("threads", po::value<std::string>()->default_value("all"), "worker threads, or all")
      ("pin", po::value<std::string>()->default_value("compact"), "compact, scatter, none, pus:a+b")
      ("placement", po::value<std::string>()->default_value("first_touch"),
       "first_touch, bind:<node>, interleave")
      ("min-time", po::value<double>()->default_value(0.2, "0.2"), "seconds per repetition")
      ("llc", po::value<std::string>()->default_value("auto"),
       "LLC size the L3 and DRAM working sets come from: auto, hwloc, measure or a size (32MiB)")
      ("simd-target", po::value<std::string>()->default_value("best"),
       "the SIMD target the FMA and bandwidth loops run: best, or one this binary has that the CPU "
       "runs (kvbench topo lists them), as kvbench run --simd-target sets it for its ceilings")
      ("barrier-pairs", po::bool_switch(),
       "instead: one crossing of the per-layer barrier between every two of the pool's PUs, a matrix "
       "in ns (3 repetitions of --min-time a pair)");
  po::variables_map vm;
  if (parse_layered_or_help(args, desc, &vm, "custom")) return 0;
  // Every value is checked before the machine is probed (--llc auto measures for seconds).
  const bool pairs = vm["barrier-pairs"].as<bool>();
  const LlcSetting llc = llc_option(vm["llc"].as<std::string>());
  const std::string simd_target = simd_target_option(vm["simd-target"].as<std::string>());
  const std::string threads_text = vm["threads"].as<std::string>();
  const int asked_threads = threads_text == "all" ? 0 : static_cast<int>(parse_positive(threads_text, "threads"));
  CeilingOptions opt;
  opt.min_seconds = vm["min-time"].as<double>();
  if (!(opt.min_seconds > 0)) throw UsageError("bad value for --min-time: expected seconds > 0");
  PinPolicy pin;
  try {
    opt.placement = parse_placement(vm["placement"].as<std::string>());
    pin = parse_pin_policy(vm["pin"].as<std::string>());
  } catch (const HarnessError& e) {
    throw UsageError(e.what());
  }
  apply_simd_target_option(simd_target);  // before the LLC probe, which reads with these loops
  const auto topo = Topology::discover();
  // The read ceiling's window loop takes the hint `kvbench run`'s kernels take on this CPU.
  const CpuFamily cpu = cpu_family(*topo);
  set_sw_prefetch(tuned_sw_prefetch(cpu.vendor, cpu.family));
  try {
    check_placement(*topo, opt.placement);  // before --llc auto's probe
  } catch (const HarnessError& e) {
    throw UsageError(std::string("bad value for --placement: ") + e.what());
  }
  const int threads = asked_threads > 0 ? asked_threads : topo->pu_count();
  try {
    choose_pus(*topo, threads, pin);  // too many threads or a bad pin list, before --llc auto's probe
  } catch (const HarnessError& e) {
    throw UsageError(e.what());
  }
  if (!pairs) apply_llc_option(*topo, llc);  // pairs size nothing from it
  try {
    if (pairs) {
      const std::vector<unsigned> pus = choose_pus(*topo, threads, pin);
      if (pus.size() < 2) throw UsageError("--barrier-pairs needs at least two bound PUs (--threads >= 2, --pin not none)");
      print_barrier_pairs(pus, measure_barrier_pairs(*topo, pus, opt));
      return 0;
    }
    ThreadPool pool(*topo, threads, pin);
    std::printf("%-18s %6s %14s %10s %10s\n", "ceiling", "level", "bytes", "GB/s", "GFLOP/s");
    for (const CeilingResult& r : measure_all_ceilings(pool, *topo, opt)) {
      if (r.kind == CeilingKind::kBarrier) {
        std::printf("%-18s %6s %14s %10s %10s %.1f ns per crossing\n", ceiling_benchmark_name(r.kind), "-", "-", "-",
                    "-", r.ns_per_sweep);
        continue;
      }
      std::printf("%-18s %6s %14lld %10.2f %10.2f", ceiling_benchmark_name(r.kind),
                  r.level.c_str(), static_cast<long long>(r.working_set_bytes), r.gbps, r.gflops);
      // The burst ends with its last worker: say whether that was one slowed worker or all.
      // And whether the plain loop or the one with the kernels' prefetch window set a read.
      const std::string detail =
          r.kind == CeilingKind::kFma ? slowest_worker_text(r, pool.bound_pus()) : read_loops_text(r);
      std::printf("%s%s\n", detail.empty() ? "" : " ", detail.c_str());
    }
    std::printf("threads %d, PUs %s, SIMD target %s\n", threads, pool.pu_list().c_str(), simd_target_name());
  } catch (const HarnessError& e) {
    throw UsageError(e.what());
  }
  return 0;
}

}  // namespace kvb
