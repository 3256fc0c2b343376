// Decode attention over a paged KV cache (kernels/paged_cache.h): one query token of one
// sequence attends to its seq_len cached positions, found through its block table.
// GQA-grouped like decode_attention: each block's K and V rows are read once for all the query
// heads of a KV head, with the same Highway tile loop (attention_partial on the slot view);
// the per-block partials are folded with a running log-sum-exp merge.
#pragma once
#include <cstdint>

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

}  // namespace kvb
