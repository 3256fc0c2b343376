// Batched decode: B sequences, each with its own cache (same shape) and its own length
// seq_lens[b], one query token each. Sequence b attends only to positions [0, seq_lens[b]).
//
// Parallel engines cut the batch into work items of (sequence, kv_head, position range), give
// each thread a share, then merge the partials of each (sequence, kv_head). plan_batch_work is
// that cut as a pure function; batch_item_attention and merge_batch_partials are the compute.
#pragma once
#include <cstdint>

#include "kernels/attention.h"

namespace kvb {

struct BatchWorkItem {
  std::int32_t seq = 0;
  std::int32_t kv_head = 0;
  std::int64_t t0 = 0;  // positions [t0, t1) of that sequence
  std::int64_t t1 = 0;
};

enum class BatchSplit : std::uint8_t {
  kByRows,      // every thread gets the same number of K/V rows (+-1), cutting ranges as needed
  kBySequence,  // thread t gets whole sequences [t*B/T, (t+1)*B/T): the naive split
};

// Upper bound on the items plan_batch_work produces: batch * kv_heads + threads.
std::int64_t batch_work_items_bound(std::int32_t batch, std::int32_t kv_heads,
                                    std::int32_t threads) noexcept;

// Fills items[0, *num_items) ordered by (seq, kv_head, t0), so all pieces of one (seq, kv_head)
// are adjacent, and thread_first[0..threads]: thread t runs items [thread_first[t],
// thread_first[t+1]). Empty sequences get no items. Errors: batch <= 0, kv_heads <= 0,
// threads <= 0, a negative length, or `capacity` below batch_work_items_bound.
Status plan_batch_work(const std::int64_t* seq_lens, std::int32_t batch, std::int32_t kv_heads,
                       std::int32_t threads, BatchSplit split, BatchWorkItem* items,
                       std::int64_t capacity, std::int64_t* num_items,
                       std::int64_t* thread_first) noexcept;

// Partial of one item: seqs[item.seq] is that sequence's cache, q is [batch][q_heads][head_dim].
Status batch_item_attention(const CacheView* seqs, std::int32_t batch, std::int32_t layer,
                            const BatchWorkItem& item, const float* q, float scale,
                            AttentionPartial out) noexcept;

// Merges the partials of items [0, num_items) (partial i in storage + i * attention_partial_floats,
// clobbered) into out [batch][q_heads][head_dim]; (seq, kv_head) pairs without items give zeros.
Status merge_batch_partials(const CacheShape& shape, std::int32_t batch, const BatchWorkItem* items,
                            std::int64_t num_items, float* partial_storage, float* out) noexcept;

// Whole batch on one thread, sequence by sequence. workspace: attention_partial_floats floats.
Status batched_decode_attention(const CacheView* seqs, std::int32_t batch, std::int32_t layer,
                                const std::int64_t* seq_lens, const float* q, float scale,
                                float* out, float* workspace) noexcept;

}  // namespace kvb
