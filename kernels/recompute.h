// Recompute baseline: decode attention WITHOUT a KV cache. Each step projects the hidden states
// of all `tokens` previous positions, x [tokens][hidden], to K and V (two GEMMs with
// wk, wv [hidden][kv_heads * head_dim]) and then attends over them, so a step costs O(tokens)
// GEMM rows where the cached decode projects one row and reads the cache: O(T) vs O(T^2) over a
// generation. RoPE and K-norm are omitted on both sides (they do not change the asymptotics).
#pragma once
#include <cstdint>

#include "kernels/cache_geometry.h"

namespace kvb {

// Floats of workspace: K and V for all tokens (2 * tokens * kv_heads * head_dim) + one partial.
std::int64_t recompute_workspace_floats(const CacheShape& shape, std::int64_t tokens) noexcept;

// shape gives q_heads, kv_heads, head_dim (layers, capacity, dtype and layout are ignored: the
// recomputed K/V are fp32, position-major, in the workspace). q, out: [q_heads][head_dim].
Status recompute_decode_attention(const CacheShape& shape, const float* x, std::int64_t tokens,
                                  std::int32_t hidden, const float* wk, const float* wv,
                                  const float* q, float scale, float* out,
                                  float* workspace) noexcept;

}  // namespace kvb
