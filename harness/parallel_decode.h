// Parallel decode executor: one decode step over all layers on a pinned pool.
// Work items are (kv_head, position range): the flattened kv_heads x context position space
// is cut into `threads` equal contiguous shares, so 8 KV heads keep 16 threads busy and one
// KV head (MQA) keeps 2 busy. Each worker writes partials into its own preallocated
// workspace; merge_partials combines them per KV head.
//
// Step schedule (one barrier per layer): phase l runs merge(l-1), attention(l) and the
// append of layer l+1 (one worker; ~8 KB), then a barrier. Partials are double-buffered by
// phase parity, so merge(l-1) and attention(l) never share memory; append(l+1) lands before
// attention(l+1). Across steps the pipeline continues (layer 0 of step s+1 is appended in the
// last phase of step s). The append rewrites position context-1 every step (steady state), and
// attention covers [0, context), the new token included.
// Modes: attention alone (same schedule without appends); append alone (layer l appended by
// worker l mod threads, no barriers inside the run); append_memcpy: the append's reference, a
// plain memcpy of the bytes the append writes (the new token's rows, encoded once untimed, and
// their scales) to the same addresses, distributed over the workers like append.
#pragma once
#include <cstdint>
#include <memory>
#include <vector>

#include "kernels/cache_geometry.h"
#include "kernels/cost_model.h"

namespace kvb {

class ThreadPool;
class CounterSet;

struct WorkItem {
  std::int32_t kv_head = 0;
  std::int64_t t0 = 0, t1 = 0;  // positions [t0, t1)
};

// Partition of `context` positions of `kv_heads` heads over `threads` workers:
// result[w] = items of worker w (contiguous, balanced to within one position).
std::vector<std::vector<WorkItem>> partition_decode(std::int32_t kv_heads, std::int64_t context,
                                                    int threads);

class ParallelDecode {
 public:
  // full step, attention+merge only, append only, memcpy of the append's bytes
  enum class Mode { kStep, kAttention, kAppend, kAppendMemcpy };

  // `cache` must hold >= context positions. Queries, new K/V rows and outputs are owned by the
  // executor (queries[L][q_heads][head_dim], outputs likewise). Throws HarnessError on bad shape.
  ParallelDecode(ThreadPool& pool, const CacheView& cache, std::int64_t context);
  ~ParallelDecode();
  ParallelDecode(const ParallelDecode&) = delete;
  ParallelDecode& operator=(const ParallelDecode&) = delete;

  // First touch + fill: each worker writes deterministic pseudo-random values (a function of
  // the row and `seed`, so independent of who writes) into the rows [0, context) it will read,
  // encoded to the cache dtype. Positions >= context are left untouched. Also fills queries
  // and the new-token K/V.
  void place_and_fill(std::uint64_t seed);

  // Runs `steps` units of `mode` in one dispatch. Attaches counters' start/stop if given.
  void run(Mode mode, std::int64_t steps, CounterSet* counters = nullptr);

  // Time the workers spent waiting at the per-layer barriers of kStep and kAttention runs, out
  // of the time they spent in those runs, summed over workers and over every run so far (a
  // timestamp counter's ticks; zero with one worker, whose barrier never waits). A worker that
  // the host deschedules, or that runs on a slower core, holds every other worker at the next
  // barrier: the share tells such a row from one whose workers were all slow.
  struct BarrierWait {
    std::uint64_t waiting = 0, running = 0;
  };
  BarrierWait barrier_wait() const noexcept;

  const std::vector<std::vector<WorkItem>>& plan() const noexcept;
  std::int64_t context() const noexcept;
  std::int64_t append_position() const noexcept;  // context - 1: the step rewrites it
  // Cost model of one unit of `mode`.
  Cost cost(Mode mode) const;
  const float* query(std::int32_t layer) const;    // [q_heads][head_dim]
  const float* output(std::int32_t layer) const;   // [q_heads][head_dim], after run()
  const float* new_key() const;                     // [kv_heads][head_dim] appended each step
  const float* new_value() const;
  float scale() const noexcept;                     // 1/sqrt(head_dim)

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace kvb
