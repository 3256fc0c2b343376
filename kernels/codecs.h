// Scalar reference codecs for the cache dtypes. The SIMD kernels must produce bit-identical
// encodings; these are also what tests and the double reference decode with.
#pragma once
#include <cstdint>

namespace kvb {

std::uint16_t f32_to_f16(float f) noexcept;   // round to nearest even; overflow -> inf; NaN kept NaN
float f16_to_f32(std::uint16_t h) noexcept;
std::uint16_t f32_to_bf16(float f) noexcept;  // round to nearest even; NaN kept NaN (quiet)
float bf16_to_f32(std::uint16_t b) noexcept;

// The row codecs (int8, fp8, int4) quantise x * inv with inv = 1.0f / scale rounded to fp32
// once per row: a multiply per element instead of a division (4-10x cheaper in SIMD). x * inv
// is within 2 ulp of x / scale, so a value that close to a rounding boundary may take the
// neighbouring code: the error bound grows by |x / scale| * 2^-23 quanta (<= 1.6e-5 for int8).
// Decoding is unchanged: code * scale. A subnormal scale can make 1 / scale overflow (rows whose
// max |x| is below about 1e-36); x * inf would turn a zero element into NaN, so those rows divide
// by the scale instead: row_quotient.
//
// Symmetric int8: scale = max|x| / 127 (0 for an all-zero row, which decodes to zeros);
// q = round_to_nearest_even(x * inv) of the exact product (one rounding, as an FMA gives it;
// dividing rows round x / scale to fp32 first) clamped to [-127, 127].
// Whether a row with reciprocal inv = 1.0f / scale divides instead (inv overflowed to infinity).
inline bool row_divides(float inv) noexcept { return inv > 3.4028235e38f; }
inline float row_quotient(float x, float scale, float inv) noexcept {
  return row_divides(inv) ? x / scale : x * inv;
}
float int8_row_scale(const float* x, std::int32_t n) noexcept;
void encode_int8_row(const float* x, std::int32_t n, float scale, std::int8_t* out) noexcept;

// OCP FP8 (OFP8 spec v1.0). E4M3: bias 7, max 448, subnormals down to 2^-9, no infinities,
// NaN = S.1111.111. E5M2: bias 15, max 57344, subnormals down to 2^-16, inf = S.11111.00, NaN =
// S.11111.{01,10,11}. Encoding rounds to nearest even and SATURATES: a finite value that would
// round past the format max becomes +-max (never inf or NaN); E4M3 also maps +-inf to +-max,
// E5M2 keeps +-inf; NaN stays NaN (E4M3 S.1111.111, E5M2 S.11111.10).
inline constexpr float kFp8E4M3Max = 448.0f;
inline constexpr float kFp8E5M2Max = 57344.0f;
std::uint8_t f32_to_fp8_e4m3(float f) noexcept;
std::uint8_t f32_to_fp8_e5m2(float f) noexcept;
float fp8_e4m3_to_f32(std::uint8_t code) noexcept;
float fp8_e5m2_to_f32(std::uint8_t code) noexcept;
// FP8 rows: scale = max|x| / format max (NaN elements skipped; 0 for an all-zero row, which
// decodes to zeros); stored code = f32_to_fp8(x / scale), so every row uses the full range.
float fp8_e4m3_row_scale(const float* x, std::int32_t n) noexcept;
float fp8_e5m2_row_scale(const float* x, std::int32_t n) noexcept;
void encode_fp8_e4m3_row(const float* x, std::int32_t n, float scale, std::uint8_t* out) noexcept;
void encode_fp8_e5m2_row(const float* x, std::int32_t n, float scale, std::uint8_t* out) noexcept;

// Symmetric int4, two's-complement nibbles, two per byte: element 2i in the low nibble of byte
// i, element 2i+1 in the high nibble. scale = max|x| / 7 (0 for an all-zero row);
// q = round_to_nearest_even(x * inv) clamped to [-7, 7] (-8 is never written; a NaN element
// encodes as 0). n must be even (the cache guarantees it); writes n / 2 bytes.
float int4_row_scale(const float* x, std::int32_t n) noexcept;
void encode_int4_row(const float* x, std::int32_t n, float scale, std::uint8_t* out) noexcept;
// Element j of a packed int4 row, sign-extended (without the scale).
inline int int4_unpack(const std::uint8_t* row, std::int64_t j) noexcept {
  const int nibble = (row[j >> 1] >> ((j & 1) * 4)) & 0xF;
  return nibble >= 8 ? nibble - 16 : nibble;
}

}  // namespace kvb
