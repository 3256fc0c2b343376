// Internal: SIMD encoding of fp32 rows into the cache dtype (Highway runtime dispatch), bit-for-bit
// the scalar codecs of kernels/codecs.h. Used by kernels/cache_write.cc.
#pragma once
#include <cstdint>

#include "kernels/dtype.h"

namespace kvb {

// Encodes `rows` rows of `head_dim` fp32 values (source rows `src_stride` floats apart) into the
// cache dtype at `dst` (destination rows `dst_stride` elements apart; even for int4). Dtypes with
// a row scale store it at scales[r * scale_stride] (scales must then be non-null): one call can
// write one token's rows of every KV head (a head stride apart in both layouts). With `stream`, vector-aligned
// chunks are written with non-temporal stores (bypassing the caches) and the stores are fenced
// at the end. int4 ignores `stream` (its vectors are 1/8 of a register, too narrow to stream).
void encode_rows(const float* src, std::int64_t src_stride, void* dst, std::int64_t dst_stride,
                 std::int64_t rows, std::int32_t head_dim, DType dtype, float* scales,
                 std::int64_t scale_stride, bool stream) noexcept;
// Consecutive rows: scale_stride 1.
void encode_rows(const float* src, std::int64_t src_stride, void* dst, std::int64_t dst_stride,
                 std::int64_t rows, std::int32_t head_dim, DType dtype, float* scales,
                 bool stream) noexcept;

// One token's rows of every KV head into a slot, K and V (an append): the two encode_rows calls
// (key.src to key.dst, value.src to value.dst; source rows head_dim floats apart, destination
// rows dst_stride elements apart, scales scale_stride apart) in one dispatch. With `stream`, as
// encode_rows streams, with one fence after both.
// A one-row encode costs about as much in calls as in work (Zen 5: 7.4 ns per one-row call
// against 2.7 ns per row in 8-row calls), and a cache with one KV head appends two rows per layer.
struct SlotRows {
  const float* src;
  void* dst;
  float* scales;  // null unless the dtype has a row scale
};
void encode_token(const SlotRows& key, const SlotRows& value, std::int64_t dst_stride,
                  std::int64_t rows, std::int32_t head_dim, DType dtype,
                  std::int64_t scale_stride, bool stream = false) noexcept;

// The same for fp16 without `stream`, with the rows' pointers given: K rows k_src to k_dst, V rows
// v_src to v_dst, source rows head_dim floats apart, destination rows dst_stride elements apart.
// append_token's fp16 rows take it directly (kernels/cache_write.cc).
void encode_f16_token(const float* k_src, std::uint16_t* k_dst, const float* v_src, std::uint16_t* v_dst,
                      std::int64_t dst_stride, std::int64_t rows, std::int32_t head_dim) noexcept;

// The same for int8 with one or two rows of each (one or two KV heads), without `stream`: K rows
// k_src to k_dst with their scales at k_scales, V rows likewise, scales scale_stride apart.
// Returns the rows of each encoded: `rows`, or 0 where this path does not serve the head_dim or
// the target (encode_token then does). append_token's int8 rows of one or two KV heads take it
// directly (kernels/cache_write.cc).
std::int64_t encode_i8_token(const float* k_src, std::int8_t* k_dst, float* k_scales, const float* v_src,
                             std::int8_t* v_dst, float* v_scales, std::int64_t dst_stride,
                             std::int64_t scale_stride, std::int64_t rows, std::int32_t head_dim) noexcept;

}  // namespace kvb
