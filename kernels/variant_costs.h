// Cost model (bytes read, bytes written, flops) of the variant kernels, in the conventions of
// kernels/cost_model.h: data the kernel must move, FMA = 2 flops, decode/convert not counted.
#pragma once
#include <cstdint>

#include "kernels/cost_model.h"
#include "kernels/paged_cache.h"

namespace kvb {

// Paged decode attention of one sequence, ONE layer: attention_cost + the block-table entries
// (int32) it reads.
Cost paged_attention_cost(const PagedShape& shape, std::int64_t seq_len) noexcept;

// Batched decode attention, ONE layer: the sum of attention_cost over the sequences.
Cost batched_attention_cost(const CacheShape& shape, const std::int64_t* seq_lens,
                            std::int32_t batch) noexcept;

// Chunked decode of tq queries after `prefix` cached positions, ONE layer: K/V rows of
// prefix + tq positions read once, tq query/output tokens; query i scores prefix + i + 1 rows.
Cost chunked_attention_cost(const CacheShape& shape, std::int64_t prefix, std::int32_t tq) noexcept;

// Moving `tokens` positions of every layer (repack, growth copy, one clone): payload + int8
// scales read once and written once. Clone of n samples = this * n.
Cost cache_copy_cost(const CacheShape& shape, std::int64_t tokens) noexcept;

// Recompute-baseline step for ONE layer over `tokens` positions: two GEMMs (2*tokens*hidden*
// kv_heads*head_dim flops each) reading x and the weights and writing fp32 K/V to workspace,
// then fp32 attention over them (attention_cost of an fp32 cache).
Cost recompute_cost(const CacheShape& shape, std::int32_t hidden, std::int64_t tokens) noexcept;

// The cached counterpart for ONE layer: project one token (x row, both weights), append it,
// attend over `tokens` cached positions.
Cost cached_projection_step_cost(const CacheShape& shape, std::int32_t hidden,
                                 std::int64_t tokens) noexcept;

}  // namespace kvb
