// Scalar codecs for lower-precision KV storage that the core DType enum does not have yet:
//   int4  symmetric, q in [-7, 7], one fp32 scale per group of `group` elements along the row
//         (group = head_dim is the per-token scale); two values per byte, element 2i in the low
//         nibble and 2i+1 in the high nibble, each a two's-complement nibble.
//   fp8   OCP FP8 e4m3 (bias 7, max 448, no infinities, S.1111.111 = NaN) and e5m2 (bias 15,
//         max 57344, IEEE-style inf/NaN), with one fp32 scale per row: stored = x / scale,
//         scale = max|x| / format max, so a row uses the whole range.
// These are the definitions a SIMD decoder must reproduce; integrating them as cache dtypes
// needs the geometry to count bytes per row (int4 is half a byte per element) and per-group
// scale arrays (see the variants branch report).
#pragma once
#include <cstdint>

#include "kernels/status.h"

namespace kvb {

// ---- int4
std::int64_t int4_row_bytes(std::int32_t n) noexcept;          // (n + 1) / 2
std::int32_t int4_groups(std::int32_t n, std::int32_t group) noexcept;  // ceil(n / group)
// scales[g] = max|x| over group g / 7 (0 for an all-zero group); q = round-half-even(x / scale)
// clamped to [-7, 7]. Errors: n <= 0 or group <= 0 (kInvalidShape), null pointers.
Status encode_int4_row(const float* x, std::int32_t n, std::int32_t group, float* scales,
                       std::uint8_t* out) noexcept;
// Element j of a packed row, without its scale.
std::int32_t int4_element(const std::uint8_t* row, std::int64_t j) noexcept;
Status decode_int4_row(const std::uint8_t* row, std::int32_t n, std::int32_t group,
                       const float* scales, float* out) noexcept;

// ---- fp8
enum class Fp8Format : std::uint8_t { kE4M3, kE5M2 };
float fp8_max(Fp8Format f) noexcept;  // 448, 57344
// Round to nearest even; finite values beyond the max saturate to +-max (the "satfinite"
// conversion scaled KV caches use); NaN stays NaN; e5m2 keeps +-inf as inf.
std::uint8_t f32_to_fp8(float x, Fp8Format f) noexcept;
float fp8_to_f32(std::uint8_t code, Fp8Format f) noexcept;
float fp8_row_scale(const float* x, std::int32_t n, Fp8Format f) noexcept;  // max|x| / fp8_max
void encode_fp8_row(const float* x, std::int32_t n, float scale, Fp8Format f,
                    std::uint8_t* out) noexcept;

}  // namespace kvb
