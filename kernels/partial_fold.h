// Running (unnormalised) log-sum-exp merge of attention partials: what a kernel needs when it
// visits the positions of one KV head in several pieces (paged blocks, chunk prefix + causal
// tail, work items of a batch) and wants one result without storing every piece.
// Internal to kernels/; the public merge_partials (kernels/attention.h) normalises instead.
#pragma once
#include <cstdint>

#include "kernels/attention.h"

namespace kvb {

// into := into (+) from for `heads` query heads of head_dim each; empty pieces (sum 0) are no-ops.
void fold_partial(std::int32_t heads, std::int32_t head_dim, const AttentionPartial& from,
                  const AttentionPartial& into) noexcept;

// Empty partial: max = -inf, sum = 0, acc = 0.
void clear_partial(std::int32_t heads, std::int32_t head_dim, const AttentionPartial& p) noexcept;

// out[h][:] = acc[h][:] / sum[h]; an empty partial gives zeros (as decode_attention does).
void normalise_partial(std::int32_t heads, std::int32_t head_dim, const AttentionPartial& p,
                       float* out) noexcept;

// The slice of a partial that covers heads [first, first + count) (pointer arithmetic only).
AttentionPartial partial_slice(const AttentionPartial& p, std::int32_t first,
                               std::int32_t head_dim) noexcept;

}  // namespace kvb
