// Cache management: what an engine pays when a cache's capacity changes or a prefilled cache
// is shared by several samples. All three move only the `tokens` valid positions of every
// (layer, K|V, kv_head) (head-major) or (layer, K|V) (position-major) run, plus int8 scales.
//
// Source and destination geometries must agree on everything but capacity. `hint` picks cached
// or non-temporal stores for the payload (kAuto: streaming when more than
// kStreamingThresholdBytes are written, as prefill_copy does).
#pragma once
#include <cstdint>

#include "kernels/cache_geometry.h"
#include "kernels/cache_write.h"  // StoreHint

namespace kvb {

// Capacity after growing to hold `tokens` positions in steps of `step` (engines use 1024):
// the smallest multiple of step >= tokens (at least one step). 0 for non-positive arguments.
std::int64_t grown_capacity(std::int64_t tokens, std::int64_t step) noexcept;

// In-place repack of one buffer laid out by `from` into the layout of `to` (capacity changes).
// Shrinking moves runs from high to low offsets front to back; growing moves them back to front
// (the buffer must hold to.data_bytes()). Positions >= tokens are left unspecified.
Status repack_in_place(const CacheGeometry& from, const CacheGeometry& to, std::int64_t tokens,
                       void* data, float* scales, StoreHint hint = StoreHint::kAuto) noexcept;

// Copies positions [0, tokens) of src into dst (growth into a larger buffer, or one clone).
Status copy_cache_prefix(const CacheView& src, const CacheView& dst, std::int64_t tokens,
                         StoreHint hint = StoreHint::kAuto) noexcept;

// Copies the prefilled positions [0, tokens) of src into each of the n caches dsts[0..n).
Status clone_cache(const CacheView& src, const CacheView* dsts, std::int32_t n,
                   std::int64_t tokens, StoreHint hint = StoreHint::kAuto) noexcept;

}  // namespace kvb
