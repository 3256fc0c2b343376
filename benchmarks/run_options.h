// Options of `kvbench run` beyond the shape: what to run, how long, where results go.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include <boost/program_options/options_description.hpp>
#include <boost/program_options/variables_map.hpp>

#include "harness/llc_probe.h"
#include "kernels/slot_prefetch.h"
#include "kernels/sw_prefetch.h"
#include "kernels/tile_order.h"

namespace kvb {

enum class Family {
  kDecodeStep, kAttention, kAppend, kPrefillCopy,
  kAppendMemcpy,  // append's reference: memcpy of its bytes to its addresses (added with append)
  kAppendStreaming,  // append with non-temporal stores (StoreHint::kStreaming); adds append_memcpy
  // KV-cache variants (benchmarks/variant_runner.h)
  kPagedAttention, kBatchedAttention, kChunkedAttention, kCacheRepack, kCacheGrow, kCacheClone,
  kMemcpySameBytes, kRecomputeDecode,
};
inline constexpr Family kAllFamilies[] = {
    Family::kDecodeStep,       Family::kAttention,        Family::kAppend,
    Family::kPrefillCopy,      Family::kPagedAttention,   Family::kBatchedAttention,
    Family::kChunkedAttention, Family::kCacheRepack,      Family::kCacheGrow,
    Family::kCacheClone,       Family::kMemcpySameBytes,  Family::kRecomputeDecode,
    Family::kAppendMemcpy,     Family::kAppendStreaming};
// CSV `benchmark`: decode_step, attention, append, prefill_copy, paged_attention,
// batched_attention, chunked_attention, cache_repack, cache_grow, cache_clone,
// memcpy_same_bytes, recompute_decode, append_memcpy, append_streaming.
const char* family_name(Family f) noexcept;

// kBarrier: only the per-layer barrier's crossing (ceiling_barrier), which every other set also
// measures: it costs no buffer and about a second, and it is what tells two runs' vCPU placements
// apart when multi-threaded rows are compared (analysis/ceiling_change.h).
enum class CeilingSet { kNone, kBarrier, kRead, kAll };

struct RunSettings {
  std::vector<Family> families{Family::kDecodeStep};
  CeilingSet ceilings = CeilingSet::kAll;
  // Each benchmark's own ceiling (the kind and level its rows are held against) measured right
  // before its first repetition and right after its last; ceiling_gbps = the larger.
  bool ceiling_bracket = false;
  int repetitions = 3;
  double min_time_s = 0.1;
  std::string out;                // "" = results/<run_id>.csv
  bool force = false;             // replace an existing --out file
  bool append = false;            // add rows to an existing --out file
  bool resume = false;            // append, skipping configurations already complete in it
  bool skip_invalid = false;
  bool dry_run = false;
  std::string placement = "first_touch";
  LlcSetting llc;                     // --llc: where the LLC size comes from (harness/llc_probe)
  // --sw-prefetch: the attention kernels' prefetch hint (kernels/sw_prefetch.h); auto = the one
  // tuned for this CPU
  bool sw_prefetch_auto = true;
  SwPrefetch sw_prefetch = SwPrefetch::kT0;
  TileOrder tile_order = TileOrder::kLinear;  // --tile-order (kernels/tile_order.h)
  std::string simd_target = "best";  // --simd-target: best, or the target to cap dispatch at (kernels/simd_target.h)
  // --slot-prefetch: the request an int8 append makes for its slot's lines
  // (kernels/slot_prefetch.h); auto = the one tuned for this CPU
  bool slot_prefetch_auto = true;
  SlotPrefetch slot_prefetch = SlotPrefetch::kWrite;
  std::vector<std::string> counters;  // PAPI events besides kvbench's SDE events
  int validate_layers = 3;            // layers checked against the double reference
  bool time_weights = false;          // cache-state weights: time the weight streaming too
  bool inject_fault = false;          // self-test: perturb the fast output before validation
  std::vector<std::string> benchmark_flags;  // --benchmark_* passed through to Google Benchmark
  // Axes of the variant families (each list is swept for the families that use it).
  std::vector<std::int64_t> block_sizes{16};           // paged_attention
  std::vector<std::string> block_orders{"contiguous"};  // paged_attention
  std::vector<std::int64_t> batches{4};                 // batched_attention, cache_clone
  std::vector<std::string> seq_lens{"uniform"};         // batched_attention
  std::vector<std::int64_t> query_tokens{4};            // chunked_attention
  // Notes for stderr: a variant's axis given (command line or config file) for a run without any
  // family that uses it.
  std::vector<std::string> notes;
};

// Shape options plus run options (threads, pin, cache-state and the above).
boost::program_options::options_description run_options();

// Splits argv into Google Benchmark flags (--benchmark_*) and kvbench options.
void split_benchmark_flags(const std::vector<std::string>& args, std::vector<std::string>* ours,
                           std::vector<std::string>* benchmark_flags);

RunSettings run_settings_from(const boost::program_options::variables_map& vm,
                              std::vector<std::string> benchmark_flags);

}  // namespace kvb
