// Multi-token decode (speculative-decoding verification, chunked prefill): tq query tokens at
// positions prefix .. prefix + tq - 1, whose K and V rows are already in the cache. Query i
// attends to positions [0, prefix + i] (the cached prefix plus the chunk, causally).
//
// The prefix rows are read once for all tq queries: the tq * G query vectors of one KV head are
// handed to the GQA-grouped tile loop as one group of tq * G heads (groups beyond 32 heads take
// several passes over the rows, see kernels/attention.cc). The causal tail (tq rows, cache-hot)
// is done per query and folded in.
#pragma once
#include <cstdint>

#include "kernels/cache_geometry.h"

namespace kvb {

// Floats of workspace for chunked_decode_attention with tq queries:
// gathered queries tq*G*head_dim + prefix partial tq*G*(2+head_dim) + tail partial G*(2+head_dim).
std::int64_t chunked_attention_workspace_floats(const CacheShape& shape, std::int32_t tq) noexcept;

// q and out are [tq][q_heads][head_dim]; prefix + tq <= capacity; tq >= 1.
Status chunked_decode_attention(const CacheView& cache, std::int32_t layer, std::int64_t prefix,
                                std::int32_t tq, const float* q, float scale, float* out,
                                float* workspace) noexcept;

}  // namespace kvb
