// Decode attention over a paged KV cache (kernels/paged_cache.h): one query token of one
// sequence attends to its seq_len cached positions, found through its block table.
// GQA-grouped like decode_attention: each block's K and V rows are read once for all the query
// heads of a KV head, with the same Highway tile loop (attention_partial on the slot view);
// the per-block partials are folded with a running log-sum-exp merge.
#pragma once
#include <cstdint>

#include "kernels/attention.h"
#include "kernels/batched_attention.h"
#include "kernels/paged_cache.h"

namespace kvb {

// Floats of workspace paged_decode_attention needs: kv_heads + 1 group partials (a running
// partial per KV head, one for the current block).
std::int64_t paged_attention_workspace_floats(const PagedShape& shape) noexcept;

// q and out are [q_heads][head_dim]; out equals decode_attention on a head-major cache holding
// the same rows at positions [0, seq_len).
Status paged_decode_attention(const PagedView& pool, std::int32_t layer, BlockTable table,
                              std::int64_t seq_len, const float* q, float scale, float* out,
                              float* workspace) noexcept;

// Partial of one KV head over logical positions [t0, t1) of a paged sequence: the building block
// for batched decode over a shared pool (work items from plan_batch_work). q is the G query
// vectors of that KV head; scratch holds attention_partial_floats floats.
Status paged_attention_partial(const PagedView& pool, std::int32_t layer, BlockTable table,
                               std::int32_t kv_head, std::int64_t t0, std::int64_t t1,
                               const float* q, float scale, AttentionPartial out,
                               float* scratch) noexcept;

// One work item of a batch whose sequences live in one pool: tables[item.seq] is that
// sequence's block table, q is [batch][q_heads][head_dim]. Merge with merge_batch_partials.
Status paged_batch_item_attention(const PagedView& pool, const BlockTable* tables,
                                  std::int32_t batch, std::int32_t layer, const BatchWorkItem& item,
                                  const float* q, float scale, AttentionPartial out,
                                  float* scratch) noexcept;

// The same, all KV heads of a sequence range per item: plan with kv_heads = 1 (items have
// kv_head 0 and cover [t0, t1) of every head), give each item a partial of
// paged_all_heads_shape (q_heads heads), and merge with merge_batch_partials on that shape.
// Walks the pool span by span with all heads, which suits the [slot][kv_head][dim] pool better
// than per-head items (whose rows are one KV-head row per slot, far apart).
CacheShape paged_all_heads_shape(const PagedShape& shape) noexcept;
Status paged_batch_range_attention(const PagedView& pool, const BlockTable* tables,
                                   std::int32_t batch, std::int32_t layer,
                                   const BatchWorkItem& item, const float* q, float scale,
                                   AttentionPartial out, float* scratch) noexcept;

}  // namespace kvb
