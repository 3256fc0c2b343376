// Internal to kernels/: the work of merge_partials (kernels/attention.h) after its checks, in the
// CPU's vectors (Highway runtime dispatch).
#pragma once
#include <cstdint>

#include "kernels/attention.h"

namespace kvb {

// out[g][:] for `heads` query heads of head_dim each: the n partials' accumulators weighted by
// exp(max_i - m) / sum, m the largest max among the non-empty ones (sum != 0); zeros where all
// are empty.
void merge_heads(const AttentionPartial* parts, std::int32_t n, std::int32_t heads,
                 std::int32_t head_dim, float* out) noexcept;

}  // namespace kvb
