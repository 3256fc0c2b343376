// kvbench-harness-info: what the harness sees and measures on this machine (topology,
// pinning, dispatch cost, counter availability, ceilings). Bad options exit with status 2.
#include <boost/program_options.hpp>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <iostream>
#include <string>
#include <vector>

#include "harness/ceilings.h"
#include "harness/counters.h"
#include "harness/error.h"
#include "harness/memory.h"
#include "harness/metadata.h"
#include "harness/parallel_decode.h"
#include "harness/thread_pool.h"
#include "harness/topology.h"
#include "kernels/attention.h"
#include "kernels/sw_prefetch.h"

namespace po = boost::program_options;

int main(int argc, char** argv) {
  int threads = 1;
  std::string pin, placement;
  std::vector<std::string> counters;
  double min_seconds = 0.2;
  std::vector<std::string> read_at;
  long long decode_steps = 0;
  po::options_description desc("kvbench-harness-info options");
  desc.add_options()("help,h", "show this help")
      ("threads,t", po::value(&threads)->default_value(1), "worker threads")
      ("pin", po::value(&pin)->default_value("compact"), "compact | scatter | none | pus:0+1")
      ("placement", po::value(&placement)->default_value("first_touch"), "first_touch | bind:<node> | interleave")
      ("counters", po::value(&counters)->multitoken(), "PAPI events to try (plus kvbench's SDEs)")
      ("ceilings", "measure bandwidth/FMA ceilings at every working-set level")
      ("min-seconds", po::value(&min_seconds)->default_value(0.2), "timed seconds per ceiling repetition")
      ("read-at", po::value(&read_at)->multitoken(),
       "measure the read ceiling at these total working sets (e.g. 16MB 1GB, likwid-bench units: 1 kB = 1000 B)")
      ("decode-steps", po::value(&decode_steps)->default_value(0),
       "time this many Qwen3-0.6B decode steps (context 1024) and compare with the DRAM read ceiling");
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
    // The kernels' prefetch hint as `kvbench run` tunes it, which the read ceiling's window takes.
    const kvb::CpuFamily cpu = kvb::cpu_family(*topo);
    kvb::set_sw_prefetch(kvb::tuned_sw_prefetch(cpu.vendor, cpu.family));
    std::cout << topo->describe() << kvb::counter_capabilities();
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

    kvb::CeilingOptions ropt;
    ropt.min_seconds = min_seconds;
    ropt.placement = kvb::parse_placement(placement);
    for (const std::string& text : read_at) {
      std::size_t pos = 0;
      double v = 0;
      try { v = std::stod(text, &pos); } catch (const std::exception&) { pos = 0; }
      const std::string unit = text.substr(pos);
      // likwid-bench's -w sizes are decimal (1 MB = 1e6 B); so are ours here, to compare like for like.
      const double mult = unit == "kB" || unit == "KB" ? 1e3 : unit == "MB" ? 1e6 : unit == "GB" ? 1e9 : unit.empty() ? 1 : -1;
      if (pos == 0 || mult < 0 || v <= 0) throw kvb::HarnessError("bad --read-at size '" + text + "' (e.g. 16MB, 1GB)");
      // Named by its size, not a cache level: read in a static split, as likwid-bench splits it.
      const kvb::WorkingSet ws{text, static_cast<std::int64_t>(v * mult)};
      const kvb::CeilingResult r = kvb::measure_bandwidth(pool, *topo, kvb::CeilingKind::kRead, ws, ropt);
      std::printf("ceiling_read %2d thr at %-6s (%lld B): %8.1f GB/s (%.0f MB/s)\n", r.threads, text.c_str(),
                  static_cast<long long>(r.working_set_bytes), r.gbps, r.gbps * 1000);
      // The fastest of its loops (kvb::measure_bandwidth): likwid-bench's load reads one stream
      // with no software prefetch, like the plain one.
      if (const std::string loops = kvb::read_loops_text(r); !loops.empty()) std::printf("  %s\n", loops.c_str());
    }
    if (decode_steps > 0) {
      auto time_mode = [&](kvb::ParallelDecode::Mode mode, long long steps) {
        dec.run(mode, 2);  // warm
        const auto t0 = std::chrono::steady_clock::now();
        dec.run(mode, steps);
        return std::chrono::duration<double, std::nano>(std::chrono::steady_clock::now() - t0).count() / steps;
      };
      // Alternate decode and ceiling three times and keep the best of each, so that other load
      // on the machine hits both sides alike.
      const kvb::WorkingSet dram_ws = kvb::ceiling_working_sets(*topo, pool.bound_pus(), threads).back();
      double ns = 1e300, attn_ns = 1e300, append_ns = 1e300, dram = 0;
      for (int rep = 0; rep < 3; ++rep) {
        ns = std::min(ns, time_mode(kvb::ParallelDecode::Mode::kStep, decode_steps));
        attn_ns = std::min(attn_ns, time_mode(kvb::ParallelDecode::Mode::kAttention, decode_steps));
        append_ns = std::min(append_ns, time_mode(kvb::ParallelDecode::Mode::kAppend, decode_steps * 100));
        dram = std::max(dram, kvb::measure_bandwidth(pool, *topo, kvb::CeilingKind::kRead, dram_ws, ropt).gbps);
      }
      const kvb::Cost c = dec.cost(kvb::ParallelDecode::Mode::kStep);
      const double gbps = (c.bytes_read + c.bytes_written) / ns;
      std::printf("per step: attention alone %.0f ns, append alone %.0f ns (28 layers, one token)\n", attn_ns, append_ns);
      std::printf("decode step (Qwen3-0.6B, context 1024, %d thr): %.0f ns/step, %.1f tokens/s, %.1f GB/s = %.1f%% of "
                  "DRAM read ceiling %.1f GB/s (%lld B)\n", threads, ns, 1e9 / ns, gbps, 100 * gbps / dram, dram,
                  static_cast<long long>(dram_ws.bytes));
    }
    if (vm.count("ceilings")) {
      kvb::CeilingOptions opt;
      opt.min_seconds = min_seconds;
      opt.placement = kvb::parse_placement(placement);
      for (const kvb::CeilingResult& r : kvb::measure_all_ceilings(pool, *topo, opt)) {
        if (r.kind == kvb::CeilingKind::kFma)
          std::printf("%-17s %2d thr  %8.1f GFLOP/s\n", kvb::ceiling_benchmark_name(r.kind), r.threads, r.gflops);
        else if (r.kind == kvb::CeilingKind::kBarrier)
          std::printf("%-17s %2d thr  %8.1f ns per crossing\n", kvb::ceiling_benchmark_name(r.kind), r.threads,
                      r.ns_per_sweep);
        else
          std::printf("%-17s %2d thr  %-4s %12lld B  %8.1f GB/s  THP %s\n", kvb::ceiling_benchmark_name(r.kind),
                      r.threads, r.level.c_str(), static_cast<long long>(r.working_set_bytes), r.gbps,
                      kvb::thp_state_name(r.thp.state));
      }
    }
  } catch (const kvb::HarnessError& e) {
    std::fprintf(stderr, "kvbench-harness-info: %s\n", e.what());
    return 2;
  }
  return 0;
}
