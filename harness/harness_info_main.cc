// kvbench-harness-info: what the harness sees and measures on this machine (topology,
// pinning, dispatch cost, counter availability, ceilings). Bad options exit with status 2.
#include <boost/program_options.hpp>

#include <cstdio>
#include <iostream>
#include <string>
#include <vector>

#include "harness/ceilings.h"
#include "harness/counters.h"
#include "harness/error.h"
#include "harness/memory.h"
#include "harness/parallel_decode.h"
#include "harness/thread_pool.h"
#include "harness/topology.h"
#include "kernels/attention.h"

namespace po = boost::program_options;

int main(int argc, char** argv) {
  int threads = 1;
  std::string pin, placement;
  std::vector<std::string> counters;
  double min_seconds = 0.2;
  po::options_description desc("kvbench-harness-info options");
  desc.add_options()("help,h", "show this help")
      ("threads,t", po::value(&threads)->default_value(1), "worker threads")
      ("pin", po::value(&pin)->default_value("compact"), "compact | scatter | none | pus:0+1")
      ("placement", po::value(&placement)->default_value("first_touch"), "first_touch | bind:<node> | interleave")
      ("counters", po::value(&counters)->multitoken(), "PAPI events to try (plus kvbench's SDEs)")
      ("ceilings", "measure bandwidth/FMA ceilings at every working-set level")
      ("min-seconds", po::value(&min_seconds)->default_value(0.2), "timed seconds per ceiling repetition");
  po::variables_map vm;
  try {
    po::store(po::parse_command_line(argc, argv, desc), vm);
    po::notify(vm);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "kvbench-harness-info: %s\n", e.what());
    return 2;
  }
  if (vm.count("help")) {
    std::cout << desc << "\n";
    return 0;
  }
  try {
    auto topo = kvb::Topology::discover();
    std::cout << topo->describe();
    kvb::ThreadPool pool(*topo, threads, kvb::parse_pin_policy(pin));
    std::cout << "pool: " << threads << " thread(s), pin " << kvb::pin_policy_name(pool.pin())
              << ", workers run on PUs " << pool.pu_list() << "\n";
    std::printf("empty dispatch + barrier: %.0f ns\n", pool.empty_dispatch_ns());
    std::cout << "kernels dispatch to " << kvb::simd_target_name() << "\n";

    // Counter availability: a short Qwen3-0.6B-shaped decode with the requested events.
    if (counters.empty()) counters = {"PAPI_TOT_CYC", "PAPI_L3_TCM", "perf::CYCLES"};
    for (const std::string& s : kvb::sde_counter_names()) counters.push_back(s);
    kvb::CacheShape shape;
    shape.layers = 28; shape.q_heads = 16; shape.kv_heads = 8; shape.head_dim = 128; shape.capacity = 1024;
    kvb::CacheGeometry geo;
    if (!kvb::ok(kvb::CacheGeometry::create(shape, &geo))) throw kvb::HarnessError("bad demo shape");
    kvb::Buffer buf(*topo, static_cast<std::size_t>(geo.data_bytes()), kvb::parse_placement(placement));
    kvb::CacheView view{&geo, buf.data(), nullptr};
    kvb::ParallelDecode dec(pool, view, 1024);
    dec.place_and_fill(1);
    kvb::CounterSet cs(counters, threads);
    dec.run(kvb::ParallelDecode::Mode::kStep, 3);  // warm up
    dec.run(kvb::ParallelDecode::Mode::kStep, 10, &cs);
    std::cout << "counters per decode step (Qwen3-0.6B shape, context 1024, THP "
              << kvb::thp_state_name(buf.thp()) << "):\n";
    for (const kvb::CounterReading& r : cs.readings(10)) {
      std::cout << "  " << r.event << ": " << kvb::counter_status_name(r.status);
      if (r.value) std::printf(" %.0f", *r.value);
      if (!r.reason.empty()) std::cout << " (" << r.reason << ")";
      std::cout << "\n";
    }
    const std::string note = cs.notice();
    if (!note.empty()) std::cout << note << "\n";
    cs.detach_all(pool);

    if (vm.count("ceilings")) {
      kvb::CeilingOptions opt;
      opt.min_seconds = min_seconds;
      opt.placement = kvb::parse_placement(placement);
      for (const kvb::CeilingResult& r : kvb::measure_all_ceilings(pool, *topo, opt)) {
        if (r.kind == kvb::CeilingKind::kFma)
          std::printf("%-17s %2d thr  %8.1f GFLOP/s\n", kvb::ceiling_benchmark_name(r.kind), r.threads, r.gflops);
        else
          std::printf("%-17s %2d thr  %-4s %12lld B  %8.1f GB/s  THP %s\n", kvb::ceiling_benchmark_name(r.kind),
                      r.threads, r.level.c_str(), static_cast<long long>(r.working_set_bytes), r.gbps,
                      kvb::thp_state_name(r.thp));
      }
    }
  } catch (const kvb::HarnessError& e) {
    std::fprintf(stderr, "kvbench-harness-info: %s\n", e.what());
    return 2;
  }
  return 0;
}
