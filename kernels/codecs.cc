#include "kernels/codecs.h"

#include <bit>
#include <cmath>
#include <limits>

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
  const float inv = 1.0f / scale;  // one division per row: a multiply per element
  const bool divides = row_divides(inv);
  for (std::int32_t i = 0; i < n; ++i) {
    // Default rounding: nearest even. Of the exact product x * inv (a double holds it), as the
    // SIMD encoders' one FMA rounds it; a dividing row rounds x / scale to fp32 first.
    float q = divides ? std::nearbyint(x[i] / scale)
                      : static_cast<float>(std::nearbyint(static_cast<double>(x[i]) * static_cast<double>(inv)));
    q = std::fmin(127.0f, std::fmax(-127.0f, q));
    out[i] = static_cast<std::int8_t>(q);
  }
}

namespace {

float max_abs(const float* x, std::int32_t n) noexcept {
  float m = 0.0f;
  for (std::int32_t i = 0; i < n; ++i) m = std::fmax(m, std::fabs(x[i]));
  return m;
}

// One FP8 format: M mantissa bits, exponent bias, largest finite magnitude code.
struct Fp8Layout {
  int mant_bits;
  int bias;
  int max_code;
  int exp_all_ones;  // biased exponent of E5M2 inf/NaN; 0 (unused) for E4M3
};
constexpr Fp8Layout kE4M3Layout{3, 7, 0x7E, 0};
constexpr Fp8Layout kE5M2Layout{2, 15, 0x7B, 31};

std::uint8_t encode_fp8(float f, const Fp8Layout& fmt, std::uint8_t nan_code,
                        std::uint8_t inf_code) noexcept {
  const auto sign = static_cast<std::uint8_t>((std::bit_cast<std::uint32_t>(f) >> 24) & 0x80u);
  if (std::isnan(f)) return static_cast<std::uint8_t>(sign | nan_code);
  if (std::isinf(f)) return static_cast<std::uint8_t>(sign | inf_code);
  const float a = std::fabs(f);
  const int emin = 1 - fmt.bias;  // exponent of the smallest normal
  int e = static_cast<int>((std::bit_cast<std::uint32_t>(a) >> 23) & 0xffu) - 127;
  if (e < emin) e = emin;  // subnormal range: fixed quantum 2^(emin - M)
  // a / quantum, scaled by a power of two (exact), rounded to nearest even: m <= 2^(M+1).
  const int m = static_cast<int>(std::nearbyint(std::ldexp(a, fmt.mant_bits - e)));
  // Codes are monotonic in value: exponent field e + bias - 1 plus m (which carries the
  // implicit bit, or rolls over into the next exponent when rounding reaches 2^(M+1)).
  int code = ((e + fmt.bias - 1) << fmt.mant_bits) + m;
  if (code > fmt.max_code) code = fmt.max_code;  // saturate
  return static_cast<std::uint8_t>(sign | code);
}

// Bit assembly, not ldexp: the scalar attention baseline decodes every element through this.
float decode_fp8(std::uint8_t c, const Fp8Layout& fmt) noexcept {
  const int M = fmt.mant_bits;
  const std::uint32_t sign = static_cast<std::uint32_t>(c & 0x80) << 24;
  const int e = (c & 0x7f) >> M;
  const std::uint32_t m = c & ((1u << M) - 1);
  if (fmt.exp_all_ones == 0 ? (c & 0x7f) == 0x7f : e == fmt.exp_all_ones) {
    if (fmt.exp_all_ones == 0 || m != 0) return std::numeric_limits<float>::quiet_NaN();
    return std::bit_cast<float>(sign | 0x7f800000u);  // E5M2 infinity
  }
  if (e == 0) {  // subnormal: m * 2^(1 - bias - M), exact in fp32
    const float mag = static_cast<float>(m) * std::bit_cast<float>(
                          static_cast<std::uint32_t>(127 + 1 - fmt.bias - M) << 23);
    return std::bit_cast<float>(sign | std::bit_cast<std::uint32_t>(mag));
  }
  return std::bit_cast<float>(sign | static_cast<std::uint32_t>(e - fmt.bias + 127) << 23 |
                              m << (23 - M));
}

}  // namespace

std::uint8_t f32_to_fp8_e4m3(float f) noexcept { return encode_fp8(f, kE4M3Layout, 0x7f, 0x7e); }
std::uint8_t f32_to_fp8_e5m2(float f) noexcept { return encode_fp8(f, kE5M2Layout, 0x7e, 0x7c); }
float fp8_e4m3_to_f32(std::uint8_t code) noexcept { return decode_fp8(code, kE4M3Layout); }
float fp8_e5m2_to_f32(std::uint8_t code) noexcept { return decode_fp8(code, kE5M2Layout); }

float fp8_e4m3_row_scale(const float* x, std::int32_t n) noexcept {
  return max_abs(x, n) / kFp8E4M3Max;
}
float fp8_e5m2_row_scale(const float* x, std::int32_t n) noexcept {
  return max_abs(x, n) / kFp8E5M2Max;
}

void encode_fp8_e4m3_row(const float* x, std::int32_t n, float scale, std::uint8_t* out) noexcept {
  const float inv = scale == 0.0f ? 0.0f : 1.0f / scale;
  for (std::int32_t i = 0; i < n; ++i)
    out[i] = scale == 0.0f ? 0 : f32_to_fp8_e4m3(row_quotient(x[i], scale, inv));
}
void encode_fp8_e5m2_row(const float* x, std::int32_t n, float scale, std::uint8_t* out) noexcept {
  const float inv = scale == 0.0f ? 0.0f : 1.0f / scale;
  for (std::int32_t i = 0; i < n; ++i)
    out[i] = scale == 0.0f ? 0 : f32_to_fp8_e5m2(row_quotient(x[i], scale, inv));
}

float int4_row_scale(const float* x, std::int32_t n) noexcept { return max_abs(x, n) / 7.0f; }

void encode_int4_row(const float* x, std::int32_t n, float scale, std::uint8_t* out) noexcept {
  const float inv = scale == 0.0f ? 0.0f : 1.0f / scale;
  auto nibble = [scale, inv](float v) -> unsigned {
    if (scale == 0.0f || std::isnan(v)) return 0;
    const float q = std::fmin(7.0f, std::fmax(-7.0f, std::nearbyint(row_quotient(v, scale, inv))));
    return static_cast<unsigned>(static_cast<int>(q)) & 0xfu;
  };
  for (std::int32_t i = 0; i + 1 < n; i += 2)
    out[i / 2] = static_cast<std::uint8_t>(nibble(x[i]) | (nibble(x[i + 1]) << 4));
}

}  // namespace kvb
