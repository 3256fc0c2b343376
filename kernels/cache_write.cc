#include "kernels/cache_write.h"

#include <cstring>

#include "kernels/codecs.h"

namespace kvb {

namespace {

// Encodes one fp32 row of head_dim values into the cache dtype at `dst`; int8 also sets *scale.
void encode_row(const float* src, std::int32_t d, DType dtype, void* dst, float* scale) noexcept {
  switch (dtype) {
    case DType::kF32:
      std::memcpy(dst, src, static_cast<std::size_t>(d) * sizeof(float));
      return;
    case DType::kF16: {
      auto* out = static_cast<std::uint16_t*>(dst);
      for (std::int32_t j = 0; j < d; ++j) out[j] = f32_to_f16(src[j]);
      return;
    }
    case DType::kBF16: {
      auto* out = static_cast<std::uint16_t*>(dst);
      for (std::int32_t j = 0; j < d; ++j) out[j] = f32_to_bf16(src[j]);
      return;
    }
    case DType::kI8: {
      const float s = int8_row_scale(src, d);
      encode_int8_row(src, d, s, static_cast<std::int8_t*>(dst));
      *scale = s;
      return;
    }
  }
}

Status check_write(const CacheView& cache, std::int32_t layer, const float* k,
                   const float* v) noexcept {
  if (cache.geometry == nullptr || cache.data == nullptr || k == nullptr || v == nullptr)
    return Status::kNullArgument;
  const CacheShape& s = cache.geometry->shape();
  if (dtype_has_row_scale(s.dtype) && cache.scales == nullptr) return Status::kNullArgument;
  if (layer < 0 || layer >= s.layers) return Status::kOutOfRange;
  return Status::kOk;
}

// Writes rows for all KV heads at `slot`; src(kv_head) is that head's fp32 row.
template <typename RowOf>
void write_slot(const CacheView& cache, std::int32_t layer, std::int64_t slot, KV kv,
                RowOf src) noexcept {
  const CacheGeometry& geo = *cache.geometry;
  const CacheShape& s = geo.shape();
  auto* base = static_cast<unsigned char*>(cache.data);
  for (std::int32_t h = 0; h < s.kv_heads; ++h) {
    float* scale = dtype_has_row_scale(s.dtype)
                       ? cache.scales + geo.scale_index(layer, kv, h, slot)
                       : nullptr;
    encode_row(src(h), s.head_dim, s.dtype, base + geo.byte_offset(layer, kv, h, slot), scale);
  }
}

}  // namespace

Status append_token(const CacheView& cache, std::int32_t layer, std::int64_t position,
                    const float* k, const float* v) noexcept {
  if (Status st = check_write(cache, layer, k, v); !ok(st)) return st;
  const CacheShape& s = cache.geometry->shape();
  if (position < 0 || position >= s.capacity) return Status::kOutOfRange;
  const std::int64_t d = s.head_dim;
  write_slot(cache, layer, position, KV::kKey, [&](std::int32_t h) { return k + h * d; });
  write_slot(cache, layer, position, KV::kValue, [&](std::int32_t h) { return v + h * d; });
  return Status::kOk;
}

Status prefill_copy(const CacheView& cache, std::int32_t layer, std::int64_t position,
                    std::int64_t tokens, const float* k, const float* v) noexcept {
  if (Status st = check_write(cache, layer, k, v); !ok(st)) return st;
  const CacheShape& s = cache.geometry->shape();
  if (position < 0 || tokens < 0 || position > s.capacity - tokens) return Status::kOutOfRange;
  const std::int64_t d = s.head_dim;
  // Scratch is [kv_head][tokens][d]: walk it contiguously, one head at a time.
  const CacheGeometry& geo = *cache.geometry;
  auto* base = static_cast<unsigned char*>(cache.data);
  for (KV kv : {KV::kKey, KV::kValue}) {
    const float* src = kv == KV::kKey ? k : v;
    for (std::int32_t h = 0; h < s.kv_heads; ++h) {
      for (std::int64_t t = 0; t < tokens; ++t) {
        const std::int64_t p = position + t;
        float* scale = dtype_has_row_scale(s.dtype)
                           ? cache.scales + geo.scale_index(layer, kv, h, p)
                           : nullptr;
        encode_row(src + (h * tokens + t) * d, s.head_dim, s.dtype,
                   base + geo.byte_offset(layer, kv, h, p), scale);
      }
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
