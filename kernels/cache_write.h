// KV-cache writes: every way decode and prefill put rows into the cache, encoding fp32 input
// to the cache dtype (int8, fp8 and int4 also write the row scale).
#pragma once
#include <cstdint>

#include "kernels/cache_geometry.h"

namespace kvb {

// How writes store: through the caches, or non-temporal (streaming) stores that bypass them (a
// prefill larger than the LLC would only evict useful lines; a decode's append writes a slot no
// step has touched for a whole lap of the cache). kAuto: prefill_copy streams when the copy
// writes more than kStreamingThresholdBytes; an append (one token) stores through the caches.
enum class StoreHint : std::uint8_t { kAuto, kCached, kStreaming };
inline constexpr std::int64_t kStreamingThresholdBytes = std::int64_t{8} << 20;

// Decode append: one token's K and V ([kv_heads][head_dim] fp32 each) for all KV heads of one
// layer at `position` (< capacity). kStreaming writes the rows with non-temporal stores (int4
// rows excepted, see encode_rows) and fences them before returning.
Status append_token(const CacheView& cache, std::int32_t layer, std::int64_t position,
                    const float* k, const float* v, StoreHint hint = StoreHint::kAuto) noexcept;
// The same for the KV heads [first_head, first_head + heads) only; k and v still hold all heads.
// A parallel decode step splits one token's rows over its workers this way.
Status append_token_heads(const CacheView& cache, std::int32_t layer, std::int64_t position,
                          const float* k, const float* v, std::int32_t first_head,
                          std::int32_t heads, StoreHint hint = StoreHint::kAuto) noexcept;

// Prefill bulk copy: `tokens` positions from head-major fp32 scratch [kv_head][tokens][head_dim]
// into positions [position, position + tokens) of one layer.
Status prefill_copy(const CacheView& cache, std::int32_t layer, std::int64_t position,
                    std::int64_t tokens, const float* k, const float* v,
                    StoreHint hint = StoreHint::kAuto) noexcept;

// Sliding-window ring write: like append_token, at slot = position mod capacity (the cache's
// capacity is the window W). Any position >= 0 is valid.
Status ring_append(const CacheView& cache, std::int32_t layer, std::int64_t position,
                   const float* k, const float* v) noexcept;

// How bf16 rows are encoded: "AVX512-BF16" where the CPU has it (VCVTNE2PS2BF16, the same codes)
// and the environment does not switch it off (KVBENCH_AVX512_BF16=0), else "SIMD" (integer
// rounding).
const char* bf16_encode_path() noexcept;

}  // namespace kvb
