#include "kernels/cache_write.h"

#include <cstring>

#include "kernels/cost_model.h"
#include "kernels/row_encode.h"
#include "kernels/row_encode_avx512bf16.h"
#include "kernels/stream_copy.h"

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

// Where the rows of one (layer, K|V) slot start at KV head `head`: data and, for dtypes with a
// row scale, scales; `src` is that head's fp32 row.
SlotRows slot_rows(const CacheView& cache, std::int32_t layer, std::int64_t slot, KV kv,
                   std::int32_t head, const float* src) noexcept {
  const CacheGeometry& geo = *cache.geometry;
  float* scales = dtype_has_row_scale(geo.shape().dtype)
                      ? cache.scales + geo.scale_index(layer, kv, head, slot)
                      : nullptr;
  return {src, static_cast<unsigned char*>(cache.data) + geo.byte_offset(layer, kv, head, slot),
          scales};
}

}  // namespace

Status append_token(const CacheView& cache, std::int32_t layer, std::int64_t position,
                    const float* k, const float* v, StoreHint hint) noexcept {
  if (cache.geometry == nullptr) return Status::kNullArgument;
  return append_token_heads(cache, layer, position, k, v, 0, cache.geometry->shape().kv_heads, hint);
}

Status append_token_heads(const CacheView& cache, std::int32_t layer, std::int64_t position,
                          const float* k, const float* v, std::int32_t first_head,
                          std::int32_t heads, StoreHint hint) noexcept {
  if (Status st = check_write(cache, layer, k, v); !ok(st)) return st;
  const CacheShape& s = cache.geometry->shape();
  if (position < 0 || position >= s.capacity) return Status::kOutOfRange;
  if (first_head < 0 || heads < 0 || first_head > s.kv_heads - heads) return Status::kOutOfRange;
  if (heads == 0) return Status::kOk;
  const std::int64_t first = std::int64_t{first_head} * s.head_dim;
  // No prefetch of the slot's lines: with a power-of-two head stride all of a slot's rows fall
  // into a few L1 (and L2) sets, so prefetching them evicts lines before their stores land.
  // Measured (kvbench append vs append_memcpy, warm slot): whole-slot prefetch into L1 or L2
  // 1.0-1.6x the memcpy's time, two rows ahead 1.5-2.6x, none 0.9-1.2x. (Fresh positions gain
  // from it for the wide fp32/fp16/bf16 rows: kernel_bench fp32 0.4x vs 1.0x the memcpy.)
  // int8 rows are the exception: their encoders request the slot's lines, owned, before the
  // scale chains that delay the stores (kernels/row_encode.cc, PrefetchForWrite).
  const CacheGeometry& geo = *cache.geometry;
  const bool stream = hint == StoreHint::kStreaming;
  if (s.dtype == DType::kF32 && !stream) {
    // fp32 rows are stored as they come: a copy per row, without the encoder's dispatch and
    // frame, which cost as much as the copies where a layer's slot is two 512-byte rows (one KV
    // head): results/epyc-zen5-2c-kvm/append-copy/ has the numbers.
    const auto row = static_cast<std::size_t>(dtype_row_bytes(s.dtype, s.head_dim));
    auto* base = static_cast<unsigned char*>(cache.data);
    for (KV kv : {KV::kKey, KV::kValue}) {
      const float* src = kv == KV::kKey ? k : v;
      for (std::int32_t h = first_head; h < first_head + heads; ++h)
        std::memcpy(base + geo.byte_offset(layer, kv, h, position), src + std::int64_t{h} * s.head_dim, row);
    }
    return Status::kOk;
  }
  if (s.dtype == DType::kF16 && !stream) {
    // Straight to the fp16 token encoder, past encode_token's and EncodeToken's frames, which cost
    // more than two rows' conversion. Zen 5 guest, kvbench append, 32 layers, 1000 positions, 1
    // thread, 8 alternating rounds, time over the path through encode_token: one KV head 0.69x
    // (0.76x at fresh slots), two 0.71x, eight 0.855x; EMR host 0.755-0.94x
    // (results/epyc-zen5-2c-kvm-508m/fp16-token/).
    const SlotRows key = slot_rows(cache, layer, position, KV::kKey, first_head, k + first);
    const SlotRows value = slot_rows(cache, layer, position, KV::kValue, first_head, v + first);
    encode_f16_token(key.src, static_cast<std::uint16_t*>(key.dst), value.src, static_cast<std::uint16_t*>(value.dst),
                     geo.head_stride(), heads, s.head_dim);
    return Status::kOk;
  }
  if (s.dtype == DType::kBF16 && s.head_dim % 32 == 0) {
    // Where the CPU has AVX512-BF16, straight to its token converter, K and V in one call: the
    // encoder's dispatch and frames cost more than its work where a layer's slot is two rows (one
    // KV head). Zen 5 guest, kvbench append, 32 layers, 1000 positions, 1 thread, time over the
    // token call through encode_token (6 alternating rounds): one KV head 0.755x, two 0.80x,
    // eight 0.92x; that call over main's per-set calls (8 rounds): 0.73x, 0.83x, 0.85x
    // (results/epyc-zen5-2c-kvm-508m/bf16-token/). Its rows at head_dim 64/128/256 unrolled, one
    // call per set: 0.82x / 0.80x / 0.89x warm, 0.57x / 0.60x / 0.72x at fresh slots (8 rounds;
    // EMR host: one KV head 0.89-0.91x, eight at fresh slots 1.085x; */bf16-token-unrolled/).
    const SlotRows key = slot_rows(cache, layer, position, KV::kKey, first_head, k + first);
    const SlotRows value = slot_rows(cache, layer, position, KV::kValue, first_head, v + first);
    if (detail::encode_bf16_token_avx512(key.src, static_cast<std::uint16_t*>(key.dst), value.src,
                                         static_cast<std::uint16_t*>(value.dst), geo.head_stride(), heads,
                                         s.head_dim, stream) == s.head_dim) {
      if (stream) stream_fence();
      return Status::kOk;
    }
  }
  // One encoder call for all of the slot's rows, whose rows (and scales) lie a head stride apart
  // in both layouts. Streaming: the rows' streaming path and one fence. Where the slot's lines are
  // in no cache (a decode's next position over a cache larger than the LLC), those stores skip
  // the read for ownership that a cached store pays per line; where they are cached, they evict
  // them (results/epyc-zen3-2c-kvm/append-streaming/).
  const std::int64_t scale_stride = s.kv_heads > 1 && dtype_has_row_scale(s.dtype)
                                         ? geo.scale_index(layer, KV::kKey, 1, position) -
                                               geo.scale_index(layer, KV::kKey, 0, position)
                                         : 1;  // the same for K and V
  if (s.dtype == DType::kI8 && !stream && heads <= 2) {
    // Straight to the int8 token encoder, past encode_token's and EncodeToken's frames, as fp16's
    // rows go: the one group of four rows' scale chain is the whole cost of such a slot. Zen 5
    // guest, kvbench ab, each arm at two and at four code placements (8 rounds each): one KV head
    // 0.52-0.86x the time, two 0.69-0.79x; eight (not this path) 0.99-1.11x, the 1.11x significant
    // with two placements, nothing with four (results/epyc-zen5-2c-kvm-508m/int8-few-token/).
    const SlotRows key = slot_rows(cache, layer, position, KV::kKey, first_head, k + first);
    const SlotRows value = slot_rows(cache, layer, position, KV::kValue, first_head, v + first);
    if (encode_i8_token(key.src, static_cast<std::int8_t*>(key.dst), key.scales, value.src,
                        static_cast<std::int8_t*>(value.dst), value.scales, geo.head_stride(), scale_stride, heads,
                        s.head_dim) == heads)
      return Status::kOk;
  }
  encode_token(slot_rows(cache, layer, position, KV::kKey, first_head, k + first),
               slot_rows(cache, layer, position, KV::kValue, first_head, v + first), geo.head_stride(), heads,
               s.head_dim, s.dtype, scale_stride, stream);
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

const char* bf16_encode_path() noexcept {
  return detail::avx512_bf16_enabled() ? "AVX512-BF16" : "SIMD";
}

}  // namespace kvb
