#include "kernels/cache_write.h"

#include <cstring>

#include "kernels/cost_model.h"
#include "kernels/row_encode.h"

namespace kvb {

namespace {

Status check_write(const CacheView& cache, std::int32_t layer, const float* k,
                   const float* v) noexcept {
  if (cache.geometry == nullptr || cache.data == nullptr || k == nullptr || v == nullptr)
    return Status::kNullArgument;
  const CacheShape& s = cache.geometry->shape();
  if (dtype_has_row_scale(s.dtype) && cache.scales == nullptr) return Status::kNullArgument;
  if (layer < 0 || layer >= s.layers) return Status::kOutOfRange;
  return Status::kOk;
}

// Writes one fp32 row per KV head (src + h * head_dim) at `slot`: one encoder call for all heads,
// whose rows (and scales) lie a head stride apart in both layouts.
void write_slot(const CacheView& cache, std::int32_t layer, std::int64_t slot, KV kv,
                const float* src) noexcept {
  const CacheGeometry& geo = *cache.geometry;
  const CacheShape& s = geo.shape();
  const bool scaled = dtype_has_row_scale(s.dtype);
  float* scales = scaled ? cache.scales + geo.scale_index(layer, kv, 0, slot) : nullptr;
  const std::int64_t scale_stride =
      scaled && s.kv_heads > 1 ? geo.scale_index(layer, kv, 1, slot) - geo.scale_index(layer, kv, 0, slot)
                               : 1;
  encode_rows(src, s.head_dim, static_cast<unsigned char*>(cache.data) + geo.byte_offset(layer, kv, 0, slot),
              geo.head_stride(), s.kv_heads, s.head_dim, s.dtype, scales, scale_stride,
              /*stream=*/false);
}

}  // namespace

Status append_token(const CacheView& cache, std::int32_t layer, std::int64_t position,
                    const float* k, const float* v) noexcept {
  if (Status st = check_write(cache, layer, k, v); !ok(st)) return st;
  const CacheShape& s = cache.geometry->shape();
  if (position < 0 || position >= s.capacity) return Status::kOutOfRange;
  // No prefetch of the slot's lines: with a power-of-two head stride all of a slot's rows fall
  // into a few L1 (and L2) sets, so prefetching them evicts lines before their stores land.
  // Measured (kvbench append vs append_memcpy, warm slot): whole-slot prefetch into L1 or L2
  // 1.0-1.6x the memcpy's time, two rows ahead 1.5-2.6x, none 0.9-1.2x. (Fresh positions gain
  // from it for the wide fp32/fp16/bf16 rows: kernel_bench fp32 0.4x vs 1.0x the memcpy.)
  write_slot(cache, layer, position, KV::kKey, k);
  write_slot(cache, layer, position, KV::kValue, v);
  return Status::kOk;
}

Status prefill_copy(const CacheView& cache, std::int32_t layer, std::int64_t position,
                    std::int64_t tokens, const float* k, const float* v, StoreHint hint) noexcept {
  if (Status st = check_write(cache, layer, k, v); !ok(st)) return st;
  const CacheGeometry& geo = *cache.geometry;
  const CacheShape& s = geo.shape();
  if (position < 0 || tokens < 0 || position > s.capacity - tokens) return Status::kOutOfRange;
  const bool stream = hint == StoreHint::kStreaming ||
                      (hint == StoreHint::kAuto &&
                       prefill_copy_cost(s, tokens).bytes_written > kStreamingThresholdBytes);
  const std::int64_t d = s.head_dim;
  auto* base = static_cast<unsigned char*>(cache.data);
  // Scratch is [kv_head][tokens][d]: one contiguous run of source rows per head.
  for (KV kv : {KV::kKey, KV::kValue}) {
    const float* src = kv == KV::kKey ? k : v;
    for (std::int32_t h = 0; h < s.kv_heads; ++h) {
      float* scales = dtype_has_row_scale(s.dtype)
                          ? cache.scales + geo.scale_index(layer, kv, h, position)
                          : nullptr;
      encode_rows(src + h * tokens * d, d, base + geo.byte_offset(layer, kv, h, position),
                  geo.position_stride(), tokens, s.head_dim, s.dtype, scales, stream);
    }
  }
  return Status::kOk;
}

Status ring_append(const CacheView& cache, std::int32_t layer, std::int64_t position,
                   const float* k, const float* v) noexcept {
  if (Status st = check_write(cache, layer, k, v); !ok(st)) return st;
  if (position < 0) return Status::kOutOfRange;
  const std::int64_t slot = position % cache.geometry->shape().capacity;
  return append_token(cache, layer, slot, k, v);
}

}  // namespace kvb
