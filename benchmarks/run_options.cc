#include "benchmarks/run_options.h"

#include <algorithm>

#include "benchmarks/shape_options.h"
#include "benchmarks/usage_error.h"
#include "benchmarks/value_list.h"
#include "benchmarks/machine_probe.h"

namespace kvb {
namespace po = boost::program_options;

const char* family_name(Family f) noexcept {
  switch (f) {
    case Family::kDecodeStep: return "decode_step";
    case Family::kAttention: return "attention";
    case Family::kAppend: return "append";
    case Family::kPrefillCopy: return "prefill_copy";
    case Family::kPagedAttention: return "paged_attention";
    case Family::kBatchedAttention: return "batched_attention";
    case Family::kChunkedAttention: return "chunked_attention";
    case Family::kCacheRepack: return "cache_repack";
    case Family::kCacheGrow: return "cache_grow";
    case Family::kCacheClone: return "cache_clone";
    case Family::kMemcpySameBytes: return "memcpy_same_bytes";
    case Family::kRecomputeDecode: return "recompute_decode";
    case Family::kAppendMemcpy: return "append_memcpy";
    case Family::kAppendStreaming: return "append_streaming";
  }
  return "?";
}

po::options_description run_options() {
  po::options_description sweep("Sweep (comma-separated lists)");
  sweep.add_options()
      ("threads", po::value<std::string>()->default_value("all"), "worker threads, or all")
      ("pin", po::value<std::string>()->default_value("compact"),
       "compact, scatter, none or pus:0+2+...")
      ("cache-state", po::value<std::string>()->default_value("warm"),
       "warm, cold (LLC flushed between steps), weights (layer weights streamed between steps), "
       "fresh (append, append_streaming and append_memcpy only: each step writes the next position, as a decode "
       "does, instead of rewriting the last)")
      ("benchmarks", po::value<std::string>()->default_value("decode_step"),
       "decode_step, attention, append (adds append_memcpy), append_streaming (append with "
       "non-temporal stores; adds append_memcpy), prefill_copy (bulk write of all "
       "context tokens), "
       "paged_attention, batched_attention, chunked_attention, cache_repack, cache_grow, "
       "cache_clone (each cache_* adds memcpy_same_bytes), recompute_decode")
      ("block-size", po::value<std::string>()->default_value("16"),
       "paged_attention: positions per block (list)")
      ("block-order", po::value<std::string>()->default_value("contiguous"),
       "paged_attention: contiguous, shuffled (list)")
      ("batch", po::value<std::string>()->default_value("4"),
       "batched_attention: sequences; cache_clone: copies (list)")
      ("seq-lens", po::value<std::string>()->default_value("uniform"),
       "batched_attention: uniform (all = context) or ragged (context/4 .. 7*context/4, same "
       "total) (list)")
      ("query-tokens", po::value<std::string>()->default_value("4"),
       "chunked_attention: query tokens Tq per step (list)")
      ("ceilings", po::value<std::string>()->default_value("all"),
       "all, read, barrier or none: hardware ceilings measured first (barrier: only the "
       "per-layer barrier's crossing, which kvbench compare uses to tell vCPU placements apart)")
      ("ceiling-bracket", po::value<bool>()->default_value(false)->implicit_value(true),
       "also measure each benchmark's own ceiling (read, or copy for append/prefill_copy, at its "
       "cache level and threads) right before its first and after its last repetition; its rows' "
       "ceiling_gbps is the larger of the two (works with --ceilings none too); with an FMA burst and, "
       "for 2 or more workers, the per-layer barrier's crossing at both ends");
  po::options_description run("Run");
  run.add_options()
      ("help,h", "this help")
      ("out,o", po::value<std::string>(), "CSV file (default results/<host>-<UTC time>.csv)")
      ("force", po::value<bool>()->default_value(false)->implicit_value(true),
       "replace an existing --out file")
      ("append", po::value<bool>()->default_value(false)->implicit_value(true),
       "add rows to an existing --out file (same columns)")
      ("resume", po::value<bool>()->default_value(false)->implicit_value(true),
       "append, skipping configurations already complete in --out (same machine only)")
      ("skip-invalid", po::value<bool>()->default_value(false)->implicit_value(true),
       "drop impossible combinations instead of refusing the sweep")
      ("dry-run", po::value<bool>()->default_value(false)->implicit_value(true),
       "validate and list the configurations, run nothing")
      ("repetitions", po::value<std::string>()->default_value("3"), "repetitions per benchmark")
      ("min-time", po::value<double>()->default_value(0.1, "0.1"), "minimum seconds per repetition")
      ("placement", po::value<std::string>()->default_value("first_touch"),
       "first_touch, bind:<node> or interleave")
      ("llc", po::value<std::string>()->default_value("auto"),
       "LLC size everything LLC-sized uses (auto contexts, ceilings, ws_level): hwloc, measure "
       "(one core's read bandwidth knee), a size (32MiB), or auto (hwloc's unless 70% of it "
       "already reads far slower than just past the L2; then measured; with --resume or "
       "--append, the size the file's rows were sized from)")
      ("sw-prefetch", po::value<std::string>()->default_value("auto"),
       "software prefetch of the attention kernels' K/V rows: t0 (into L1), t2 (towards L2), "
       "none, or auto (the one measured fastest on this CPU: t2 on AMD family 25, else t0); "
       "the isa column ends in +PF-T2 / +PF-NONE when not t0")
      ("simd-target", po::value<std::string>()->default_value("best"),
       "the SIMD target every kernel and ceiling runs: best (the best this CPU runs), or one this "
       "binary has that the CPU runs, e.g. avx2 on an AVX-512 CPU (kvbench topo lists them); below "
       "AVX-512 the AVX512-BF16 and AMX paths are off too. The isa column names the target")
      ("tile-order", po::value<std::string>()->default_value("linear"),
       "the order the attention kernels read a range's tiles in: linear, or halves (the range's "
       "two halves in turn: two K and two V streams); the isa column ends in +HALVES when halves")
      ("slot-prefetch", po::value<std::string>()->default_value("auto"),
       "the request an int8 append makes for its slot's lines before encoding them: w (owned: "
       "PREFETCHW on AVX-512, PREFETCHT0 on AVX2), t0 (to be read), none, or auto (the one "
       "measured fastest on this CPU: w on AMD family 26, else t0); the isa column ends in "
       "+SLOT-T0 / +SLOT-NONE when not w")
      ("counters", po::value<std::string>(), "PAPI events to read besides kvbench's SDE events")
      ("validate-layers", po::value<std::string>()->default_value("3"),
       "layers checked against the double reference per configuration")
      ("time-weights", po::value<bool>()->default_value(false)->implicit_value(true),
       "cache-state weights: include the weight streaming in the timed step (its bytes are "
       "added to bytes_read)")
      ("inject-fault", po::value<bool>()->default_value(false)->implicit_value(true),
       "self-test of the in-run validation: perturb one fast output so every configuration "
       "must fail validation (rows valid=0, exit status 1)");
  po::options_description all;
  all.add(run).add(shape_options()).add(sweep);
  return all;
}

void split_benchmark_flags(const std::vector<std::string>& args, std::vector<std::string>* ours,
                           std::vector<std::string>* benchmark_flags) {
  for (const std::string& a : args) {
    (a.rfind("--benchmark_", 0) == 0 ? benchmark_flags : ours)->push_back(a);
  }
}

RunSettings run_settings_from(const po::variables_map& vm,
                              std::vector<std::string> benchmark_flags) {
  RunSettings s;
  s.families.clear();
  for (const std::string& name : split_list(vm["benchmarks"].as<std::string>(), "benchmarks")) {
    bool found = false;
    for (Family f : kAllFamilies) {
      if (name == family_name(f)) {
        if (std::find(s.families.begin(), s.families.end(), f) == s.families.end()) {
          s.families.push_back(f);
        }
        found = true;
      }
    }
    if (!found) {
      std::string names;
      for (Family f : kAllFamilies) names += std::string(names.empty() ? "" : ", ") + family_name(f);
      throw UsageError("bad value '" + name + "' for --benchmarks: expected one of " + names);
    }
  }
  // append (either store kind) is read against a memcpy of its bytes to its addresses, measured
  // right after the last of them.
  const auto is_append = [](Family f) { return f == Family::kAppend || f == Family::kAppendStreaming; };
  if (const auto a = std::find_if(s.families.rbegin(), s.families.rend(), is_append);
      a != s.families.rend() &&
      std::find(s.families.begin(), s.families.end(), Family::kAppendMemcpy) == s.families.end()) {
    s.families.insert(a.base(), Family::kAppendMemcpy);
  }
  // The cache-management rows are read against a plain memcpy of the same bytes, same run.
  for (Family f : {Family::kCacheRepack, Family::kCacheGrow, Family::kCacheClone}) {
    if (std::find(s.families.begin(), s.families.end(), f) != s.families.end() &&
        std::find(s.families.begin(), s.families.end(), Family::kMemcpySameBytes) ==
            s.families.end()) {
      s.families.push_back(Family::kMemcpySameBytes);
    }
  }
  s.block_sizes = parse_positive_list(vm["block-size"].as<std::string>(), "block-size");
  s.block_orders = split_list(vm["block-order"].as<std::string>(), "block-order");
  for (const std::string& o : s.block_orders) {
    if (o != "contiguous" && o != "shuffled") {
      throw UsageError("bad value '" + o + "' for --block-order: expected contiguous or shuffled");
    }
  }
  s.batches = parse_positive_list(vm["batch"].as<std::string>(), "batch");
  s.seq_lens = split_list(vm["seq-lens"].as<std::string>(), "seq-lens");
  for (const std::string& k : s.seq_lens) {
    if (k != "uniform" && k != "ragged") {
      throw UsageError("bad value '" + k + "' for --seq-lens: expected uniform or ragged");
    }
  }
  s.query_tokens = parse_positive_list(vm["query-tokens"].as<std::string>(), "query-tokens");
  // An axis of families this run leaves out does nothing. A note rather than an error: a config
  // file's sweep may set it and the command line narrow --benchmarks.
  struct Axis {
    const char* option;
    std::vector<Family> users;
    const char* names;
  };
  const std::vector<Axis> axes = {
      {"block-size", {Family::kPagedAttention}, "paged_attention"},
      {"block-order", {Family::kPagedAttention}, "paged_attention"},
      {"batch", {Family::kBatchedAttention, Family::kCacheClone}, "batched_attention and cache_clone"},
      {"seq-lens", {Family::kBatchedAttention}, "batched_attention"},
      {"query-tokens", {Family::kChunkedAttention}, "chunked_attention"},
  };
  for (const Axis& axis : axes) {
    const bool used = std::any_of(axis.users.begin(), axis.users.end(), [&](Family f) {
      return std::find(s.families.begin(), s.families.end(), f) != s.families.end();
    });
    if (!vm[axis.option].defaulted() && !used)
      s.notes.push_back(std::string("--") + axis.option + " applies to " + axis.names +
                        " only, which --benchmarks leaves out: ignored");
  }
  const std::string ceilings = vm["ceilings"].as<std::string>();
  if (ceilings == "all") {
    s.ceilings = CeilingSet::kAll;
  } else if (ceilings == "read") {
    s.ceilings = CeilingSet::kRead;
  } else if (ceilings == "barrier") {
    s.ceilings = CeilingSet::kBarrier;
  } else if (ceilings == "none") {
    s.ceilings = CeilingSet::kNone;
  } else {
    throw UsageError("bad value '" + ceilings + "' for --ceilings: expected all, read, barrier or none");
  }
  s.ceiling_bracket = vm["ceiling-bracket"].as<bool>();
  s.repetitions = static_cast<int>(parse_positive(vm["repetitions"].as<std::string>(), "repetitions"));
  s.min_time_s = vm["min-time"].as<double>();
  if (!(s.min_time_s > 0)) throw UsageError("bad value for --min-time: expected seconds > 0");
  if (vm.count("out")) s.out = vm["out"].as<std::string>();
  s.force = vm["force"].as<bool>();
  s.append = vm["append"].as<bool>();
  s.resume = vm["resume"].as<bool>();
  s.skip_invalid = vm["skip-invalid"].as<bool>();
  s.dry_run = vm["dry-run"].as<bool>();
  if (s.force + s.append + s.resume > 1) {
    throw UsageError("--force, --append and --resume exclude each other");
  }
  if ((s.append || s.resume) && s.out.empty()) {
    throw UsageError("--append and --resume need --out naming the existing file");
  }
  s.placement = vm["placement"].as<std::string>();
  s.llc = llc_option(vm["llc"].as<std::string>());
  if (const std::string pf = vm["sw-prefetch"].as<std::string>(); pf != "auto") {
    s.sw_prefetch_auto = false;
    if (!parse_sw_prefetch(pf, &s.sw_prefetch))
      throw UsageError("bad value '" + pf + "' for --sw-prefetch: expected auto, t0, t2 or none");
  }
  if (const std::string order = vm["tile-order"].as<std::string>(); !parse_tile_order(order, &s.tile_order))
    throw UsageError("bad value '" + order + "' for --tile-order: expected linear or halves");
  s.simd_target = simd_target_option(vm["simd-target"].as<std::string>());
  if (const std::string sp = vm["slot-prefetch"].as<std::string>(); sp != "auto") {
    s.slot_prefetch_auto = false;
    if (!parse_slot_prefetch(sp, &s.slot_prefetch))
      throw UsageError("bad value '" + sp + "' for --slot-prefetch: expected auto, w, t0 or none");
  }
  if (vm.count("counters")) s.counters = split_list(vm["counters"].as<std::string>(), "counters");
  s.validate_layers =
      static_cast<int>(parse_positive(vm["validate-layers"].as<std::string>(), "validate-layers"));
  s.inject_fault = vm["inject-fault"].as<bool>();
  s.time_weights = vm["time-weights"].as<bool>();
  s.benchmark_flags = std::move(benchmark_flags);
  // --benchmark_repetitions given explicitly wins over --repetitions (Google Benchmark's flag).
  for (const std::string& flag : s.benchmark_flags) {
    const std::string prefix = "--benchmark_repetitions=";
    if (flag.rfind(prefix, 0) == 0) {
      s.repetitions = static_cast<int>(parse_positive(flag.substr(prefix.size()),
                                                      "benchmark_repetitions"));
    }
  }
  return s;
}

}  // namespace kvb
