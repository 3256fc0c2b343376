// The KV-cache variant families of `kvbench run` (paged, batched and chunked attention, cache
// repack/grow/clone with their memcpy baseline, recompute-instead-of-cache), built from one
// configuration's filled contiguous cache: each variant copies the rows it needs into its own
// buffers, validates against the double reference before anything is timed, and then runs one
// timed unit per run() on the configuration's pinned pool.
#pragma once
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "benchmarks/decode_fixture.h"
#include "benchmarks/run_options.h"
#include "benchmarks/sweep.h"
#include "kernels/cost_model.h"

namespace kvb {

class Topology;
class ThreadPool;
struct Placement;

// The per-benchmark axes of the variant families (CSV columns block_size, block_order, batch,
// seq_lens, query_tokens); unused axes stay at their defaults and print empty.
struct VariantParams {
  std::int64_t block_size = 0;  // paged: positions per block
  std::string block_order;      // paged: contiguous | shuffled
  std::int64_t batch = 1;       // batched: sequences; cache_clone: copies
  std::string seq_lens;         // batched: uniform | ragged
  std::int64_t query_tokens = 0;  // chunked: Tq
};

// Families handled by VariantRunner rather than the decode executor.
bool is_variant_family(Family f) noexcept;
// Families that run on worker 0 alone (their rows say threads=1).
bool runs_single_threaded(Family f) noexcept;

// Sequence lengths of a batch: uniform = all `context`; ragged = spread linearly from
// context/4 to 7*context/4 (same total, so the same bytes as uniform).
std::vector<std::int64_t> batch_seq_lens(const std::string& kind, std::int64_t batch,
                                         std::int64_t context);

// Bytes a variant allocates beyond its configuration's decode fixture (pool copy, sequence
// caches, clones, copy targets, recompute inputs and workspaces), for the memory check.
std::int64_t variant_memory_bytes(const DecodeConfig& config, Family family,
                                  const VariantParams& params);

class VariantRunner {
 public:
  struct Source {
    CacheView cache;                          // filled rows [0, context) of every layer
    std::int64_t context = 0;
    std::vector<const float*> queries;        // per layer, [q_heads][head_dim]
    std::int64_t hidden = 0;                  // recompute: model hidden size
  };
  // Builds the variant's buffers, validates `validate_layers` layers against the double
  // reference and (for copies) the copied rows. Throws UsageError for impossible parameters
  // (block size 0, batch 0, Tq 0 or > context), HarnessError when a kernel rejects its input.
  VariantRunner(const Topology& topo, const Placement& placement, ThreadPool& pool,
                const Source& source, Family family, const VariantParams& params,
                int validate_layers, bool inject_fault);
  ~VariantRunner();
  VariantRunner(const VariantRunner&) = delete;
  VariantRunner& operator=(const VariantRunner&) = delete;

  void run();  // one timed unit: all layers
  Cost cost() const;
  std::int64_t working_set_bytes() const;
  std::int64_t tokens_per_unit() const;  // 0 for the cache-management families
  const Validation& validation() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace kvb
