// Scalar reference codecs for the cache dtypes. The SIMD kernels must produce bit-identical
// encodings; these are also what tests and the double reference decode with.
#pragma once
#include <cstdint>

namespace kvb {

std::uint16_t f32_to_f16(float f) noexcept;   // round to nearest even; overflow -> inf; NaN kept NaN
float f16_to_f32(std::uint16_t h) noexcept;
std::uint16_t f32_to_bf16(float f) noexcept;  // round to nearest even; NaN kept NaN (quiet)
float bf16_to_f32(std::uint16_t b) noexcept;

// Symmetric int8: scale = max|x| / 127 (0 for an all-zero row, which decodes to zeros);
// q = round_to_nearest_even(x / scale) clamped to [-127, 127].
float int8_row_scale(const float* x, std::int32_t n) noexcept;
void encode_int8_row(const float* x, std::int32_t n, float scale, std::int8_t* out) noexcept;

}  // namespace kvb
