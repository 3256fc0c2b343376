#include "kernels/codecs.h"

#include <bit>
#include <cmath>

namespace kvb {

std::uint16_t f32_to_f16(float f) noexcept {
  const std::uint32_t x = std::bit_cast<std::uint32_t>(f);
  const std::uint32_t sign = (x >> 16) & 0x8000u;
  const std::uint32_t ax = x & 0x7fffffffu;
  if (ax >= 0x7f800000u) {  // inf, or NaN: keep the top payload bits and force quiet
    if (ax == 0x7f800000u) return static_cast<std::uint16_t>(sign | 0x7c00u);
    return static_cast<std::uint16_t>(sign | 0x7e00u | ((ax >> 13) & 0x3ffu));
  }
  // 65520 is the tie between 65504 (odd mantissa) and 65536: even wins, i.e. infinity.
  if (ax >= 0x477ff000u) return static_cast<std::uint16_t>(sign | 0x7c00u);
  if (ax < 0x38800000u) {  // below 2^-14: half subnormal (unit 2^-24) or zero
    const std::uint32_t e = ax >> 23;
    if (e < 102) return static_cast<std::uint16_t>(sign);  // < 2^-25 (or tie at 2^-25 -> even 0)
    const std::uint32_t mant = (ax & 0x7fffffu) | 0x800000u;
    const std::uint32_t shift = 126 - e;  // 14..24
    std::uint32_t h = mant >> shift;
    const std::uint32_t rem = mant & ((1u << shift) - 1);
    const std::uint32_t half = 1u << (shift - 1);
    if (rem > half || (rem == half && (h & 1u))) ++h;  // may carry into the smallest normal
    return static_cast<std::uint16_t>(sign | h);
  }
  std::uint32_t h = (ax - 0x38000000u) >> 13;  // rebias exponent 127 -> 15
  const std::uint32_t rem = ax & 0x1fffu;
  if (rem > 0x1000u || (rem == 0x1000u && (h & 1u))) ++h;  // carry may reach inf: correct
  return static_cast<std::uint16_t>(sign | h);
}

float f16_to_f32(std::uint16_t h) noexcept {
  const std::uint32_t sign = static_cast<std::uint32_t>(h & 0x8000u) << 16;
  const std::uint32_t exp = (h >> 10) & 0x1fu;
  const std::uint32_t mant = h & 0x3ffu;
  if (exp == 0) {  // zero or subnormal: mant * 2^-24, exact in fp32
    const float mag = std::ldexp(static_cast<float>(mant), -24);
    return sign ? -mag : mag;
  }
  if (exp == 31) return std::bit_cast<float>(sign | 0x7f800000u | (mant << 13));
  return std::bit_cast<float>(sign | ((exp + 112) << 23) | (mant << 13));
}

std::uint16_t f32_to_bf16(float f) noexcept {
  const std::uint32_t x = std::bit_cast<std::uint32_t>(f);
  if ((x & 0x7fffffffu) > 0x7f800000u) return static_cast<std::uint16_t>((x >> 16) | 0x40u);
  const std::uint32_t rounded = x + 0x7fffu + ((x >> 16) & 1u);  // ties to even; overflow -> inf
  return static_cast<std::uint16_t>(rounded >> 16);
}

float bf16_to_f32(std::uint16_t b) noexcept {
  return std::bit_cast<float>(static_cast<std::uint32_t>(b) << 16);
}

float int8_row_scale(const float* x, std::int32_t n) noexcept {
  float max_abs = 0.0f;
  for (std::int32_t i = 0; i < n; ++i) max_abs = std::fmax(max_abs, std::fabs(x[i]));
  return max_abs / 127.0f;
}

void encode_int8_row(const float* x, std::int32_t n, float scale, std::int8_t* out) noexcept {
  if (scale == 0.0f) {
    for (std::int32_t i = 0; i < n; ++i) out[i] = 0;
    return;
  }
  for (std::int32_t i = 0; i < n; ++i) {
    float q = std::nearbyint(x[i] / scale);  // default rounding mode: nearest even
    q = std::fmin(127.0f, std::fmax(-127.0f, q));
    out[i] = static_cast<std::int8_t>(q);
  }
}

}  // namespace kvb
