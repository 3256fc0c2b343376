// Parallel decode executor: one decode step over all layers on a pinned pool.
// Work items are (kv_head, position range). Each layer's kv_heads x context positions are cut
// into chunks (chunk_decode: whole heads, or pieces of at least kMinChunkRows, up to
// kChunksPerWorker per worker, and never fewer chunks than workers), shared out by
// harness/chunk_claims: worker w owns a contiguous block of them (what the static partition
// gives it, at chunk boundaries) and, once done, claims what is left of the others'. So a worker
// that the host slows down ends up with fewer chunks instead of holding the others at the
// layer's barrier. On the 16-vCPU EMR host (results/xeon-emr-16c-kvm/session-2026-11-27d/),
// Qwen3-0.6B decode_step at 16 threads, time over the static partition's (medians of 5
// alternating rounds, 4 chunks per worker): from DRAM fp32 0.79 (0.76-0.80) and int8 0.77
// (0.77-0.92); no 4-16-thread row's median slower. One counter for all workers measured fp32
// 0.72-0.81 but lost from the L3 on the Zen 4 guest at 2 threads (1.25x), where it broke up each
// worker's run of adjacent heads.
// Each chunk has its own preallocated partial; merge_partials combines them per KV head. The
// cache rows are first touched by the worker of the static partition (partition_decode:
// `threads` equal contiguous shares), the one that reads them unless another worker claims its
// chunk first; on one NUMA node that costs nothing, on several it costs remote reads.
//
// Step schedule (one barrier per layer): phase l runs merge(l-1), attention(l) and the
// append of layer l+1, then a barrier. The append's KV heads are split over min(kv_heads,
// threads) workers, those with the fewest merges first: one worker appending all of them (8 KB
// for Qwen3-0.6B fp32) held the others at the barrier. On the 16-vCPU EMR host that took the step
// at L2-sized contexts 0.71x the time at 16 threads and 0.85x at 4 (8 rounds; `attention`, the
// same code in both builds, 0.99x and 0.93x); L3 and DRAM rows did not move beyond that control
// (results/xeon-emr-16c-kvm/session-2026-11-29b/). Partials are double-buffered by
// phase parity, so merge(l-1) and attention(l) never share memory; append(l+1) lands before
// attention(l+1). Across steps the pipeline continues (layer 0 of step s+1 is appended in the
// last phase of step s). The append rewrites position context-1 every step (steady state), and
// attention covers [0, context), the new token included. The append modes can instead write a
// new position every step (advance_append_slots): a real decode's new token lands on lines no
// step has touched since the cache was filled, where rewriting one slot finds them in L1.
// Modes: attention alone (same schedule without appends); append alone (layer l appended by
// worker l mod threads, no barriers inside the run), with cached or with streaming stores;
// append_memcpy: the append's reference, a plain memcpy of the bytes the append writes (the new
// token's rows, encoded once untimed, and their scales) to the same addresses, distributed over
// the workers like append.
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

// Chunks shorter than this are only made to give every worker one: a range pays the kernel's
// per-call setup and softmax tail once, which a hundred rows or more hide. 32 rows, which gave the
// LLC rows' short contexts several chunks per worker, cut their barrier waits by a third but took
// int8 at 16 EMR threads 1.15-1.44x the time (results/xeon-emr-16c-kvm/session-2026-11-27f/).
inline constexpr std::int64_t kMinChunkRows = 128;
// A layer ends when its last chunk does, so the workers that finish first wait up to one chunk at
// the barrier: finer chunks shorten that wait. Measured on the 16-vCPU EMR host
// (results/xeon-emr-16c-kvm/session-2026-11-27f/), decode_step Qwen3-0.6B from DRAM (4682
// positions), 5 alternating rounds, 4 per worker and 256 rows against 16 and 128:
//   barrier waits at 4 / 8 / 16 threads, fp32 3-9 / 6-10 / 9-30% -> 2-3 / 3-4 / 3-4%, int8
//     9-12 / 12-14 / 16-67% -> 3 / 3-4 / 6-9%;
//   time, median of the per-round ratios, fp32 0.90 / 0.97 / 0.96 (faster in 5, 4 and 4 of 5
//     rounds), int8 0.99 / 0.91 / 1.02 (at 16 threads the memory is what limits).
// Chunks of 256 rows or fewer of the narrow dtypes take kernels/attention.cc's one long tile, as
// the int8 16-thread rows here did (146 rows). Since each chunk's prefetch window runs on into the
// next (2026-11-30h, same host, 14 rounds at 8 and 16 threads): 32 per worker took fp16 from DRAM
// at 16 threads 1.09x the time (12 of 14 rounds slower), 8 per worker moved no row beyond 0.95-1.03.
// Cutting only each worker's last chunk finer (halves down to 1/8, 2026-12-01, 23 rounds) took the
// 8-thread waits from about 3% to 2% but no row's time beyond 0.98-1.04: the equal chunks stay.
// Fewer chunks where equal ones do not share out evenly (24 -> 16 over 16 workers at 438
// positions, 2026-12-02, 12 rounds, results/xeon-emr-16c-kvm/chunk-balance/): no row beyond
// 0.93-1.07, and the waits rose 2-9 points where the count changed (no chunk left to take over).
inline constexpr std::int64_t kChunksPerWorker = 16;
// The chunks one layer's attention is claimed in: each head's positions cut into k equal pieces,
// k = min(ceil(kChunksPerWorker x threads / kv_heads), context / kMinChunkRows), at least 1, and
// raised to ceil(threads / kv_heads) where that gives fewer chunks than threads. Head-major
// order; each (head, position) exactly once.
std::vector<WorkItem> chunk_decode(std::int32_t kv_heads, std::int64_t context, int threads);

class ParallelDecode {
 public:
  // full step, attention+merge only, append only, memcpy of the append's bytes, append with
  // streaming stores (StoreHint::kStreaming)
  enum class Mode { kStep, kAttention, kAppend, kAppendMemcpy, kAppendStreaming };
  // The modes that write one token per step into every layer, and nothing else.
  static constexpr bool appends(Mode m) noexcept {
    return m == Mode::kAppend || m == Mode::kAppendMemcpy || m == Mode::kAppendStreaming;
  }

  // `cache` must hold >= context positions. Queries, new K/V rows and outputs are owned by the
  // executor (queries[L][q_heads][head_dim], outputs likewise). Throws HarnessError on bad shape.
  ParallelDecode(ThreadPool& pool, const CacheView& cache, std::int64_t context);
  ~ParallelDecode();
  ParallelDecode(const ParallelDecode&) = delete;
  ParallelDecode& operator=(const ParallelDecode&) = delete;

  // First touch + fill: each worker writes deterministic pseudo-random values (a function of
  // the row and `seed`, so independent of who writes) into its rows of the static partition
  // (mostly the ones it will read), encoded to the cache dtype. Positions >= context are left
  // untouched. Also fills queries and the new-token K/V.
  void place_and_fill(std::uint64_t seed);

  // Runs `steps` units of `mode` in one dispatch. Attaches counters' start/stop if given.
  void run(Mode mode, std::int64_t steps, CounterSet* counters = nullptr);

  // Time the workers spent waiting at the per-layer barriers of kStep and kAttention runs, out
  // of the time they spent in those runs, summed over workers and over every run so far (a
  // timestamp counter's ticks; zero with one worker, whose barrier never waits). A worker waits
  // from its own arrival to the last of the others' (ThreadPool::barrier(stamp)). A worker that
  // the host deschedules, or that runs on a slower core, holds every other worker at the next
  // barrier: the share tells such a row from one whose workers were all slow. Per worker too
  // (the pool's order), with the ticks the others waited for it: the last to arrive.
  struct WaitTicks {
    std::uint64_t waiting = 0, running = 0;
    std::uint64_t held = 0;  // the other workers' waits that ended at this worker's arrival
  };
  struct BarrierWait {
    std::uint64_t waiting = 0, running = 0;  // summed over workers
    std::vector<WaitTicks> by_worker;        // [worker]; empty until a timed run
  };
  BarrierWait barrier_wait() const;

  const std::vector<std::vector<WorkItem>>& plan() const noexcept;
  std::int64_t context() const noexcept;
  // The position the last append wrote (the step's, or the last step of an append or
  // append_memcpy run): context - 1 unless the slots advance.
  std::int64_t append_position() const noexcept;
  // From now on each step of an append or append_memcpy run writes the position after the one
  // before, starting at `first` and wrapping within [0, context) (decode_step still rewrites
  // context - 1). Over a cache larger than the LLC the slot a step writes was last touched a whole
  // lap of the cache earlier. Throws HarnessError if `first` is outside [0, context).
  void advance_append_slots(std::int64_t first);
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
