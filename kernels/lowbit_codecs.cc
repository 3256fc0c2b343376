#include "kernels/lowbit_codecs.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace kvb {

// ---------------------------------------------------------------- int4
std::int64_t int4_row_bytes(std::int32_t n) noexcept { return n > 0 ? (std::int64_t{n} + 1) / 2 : 0; }

std::int32_t int4_groups(std::int32_t n, std::int32_t group) noexcept {
  return n > 0 && group > 0 ? (n + group - 1) / group : 0;
}

Status encode_int4_row(const float* x, std::int32_t n, std::int32_t group, float* scales,
                       std::uint8_t* out) noexcept {
  if (n <= 0 || group <= 0) return Status::kInvalidShape;
  if (x == nullptr || scales == nullptr || out == nullptr) return Status::kNullArgument;
  std::fill(out, out + int4_row_bytes(n), std::uint8_t{0});
  for (std::int32_t g0 = 0, gi = 0; g0 < n; g0 += group, ++gi) {
    const std::int32_t g1 = std::min(n, g0 + group);
    float amax = 0.0f;
    for (std::int32_t j = g0; j < g1; ++j) amax = std::max(amax, std::fabs(x[j]));
    const float scale = amax / 7.0f;
    scales[gi] = scale;
    for (std::int32_t j = g0; j < g1; ++j) {
      // nearbyint rounds half to even in the default rounding mode.
      const float q = scale > 0.0f ? std::clamp(std::nearbyint(x[j] / scale), -7.0f, 7.0f) : 0.0f;
      const auto nibble = static_cast<std::uint8_t>(static_cast<std::int32_t>(q) & 0xF);
      out[j / 2] |= static_cast<std::uint8_t>(j % 2 == 0 ? nibble : nibble << 4);
    }
  }
  return Status::kOk;
}

std::int32_t int4_element(const std::uint8_t* row, std::int64_t j) noexcept {
  const std::int32_t nibble = (row[j / 2] >> (j % 2 == 0 ? 0 : 4)) & 0xF;
  return nibble >= 8 ? nibble - 16 : nibble;  // sign-extend the two's-complement nibble
}

Status decode_int4_row(const std::uint8_t* row, std::int32_t n, std::int32_t group,
                       const float* scales, float* out) noexcept {
  if (n <= 0 || group <= 0) return Status::kInvalidShape;
  if (row == nullptr || scales == nullptr || out == nullptr) return Status::kNullArgument;
  for (std::int32_t j = 0; j < n; ++j)
    out[j] = static_cast<float>(int4_element(row, j)) * scales[j / group];
  return Status::kOk;
}

// ---------------------------------------------------------------- fp8
namespace {

struct Fp8Params {
  int mant_bits;
  int bias;
  std::uint8_t max_code;  // largest finite magnitude code (sign clear)
};
Fp8Params params(Fp8Format f) noexcept {
  return f == Fp8Format::kE4M3 ? Fp8Params{3, 7, 0x7E} : Fp8Params{2, 15, 0x7B};
}

}  // namespace

float fp8_max(Fp8Format f) noexcept { return f == Fp8Format::kE4M3 ? 448.0f : 57344.0f; }

float fp8_to_f32(std::uint8_t code, Fp8Format f) noexcept {
  const Fp8Params p = params(f);
  const int exp_bits = 7 - p.mant_bits;
  const int e = (code >> p.mant_bits) & ((1 << exp_bits) - 1);
  const int m = code & ((1 << p.mant_bits) - 1);
  const float sign = (code & 0x80) ? -1.0f : 1.0f;
  if (f == Fp8Format::kE4M3 && e == 15 && m == 7) return std::numeric_limits<float>::quiet_NaN();
  if (f == Fp8Format::kE5M2 && e == 31)
    return m == 0 ? sign * std::numeric_limits<float>::infinity()
                  : std::numeric_limits<float>::quiet_NaN();
  if (e == 0) return sign * std::ldexp(static_cast<float>(m), 1 - p.bias - p.mant_bits);
  return sign * std::ldexp(static_cast<float>(m + (1 << p.mant_bits)), e - p.bias - p.mant_bits);
}

std::uint8_t f32_to_fp8(float x, Fp8Format f) noexcept {
  const Fp8Params p = params(f);
  if (std::isnan(x)) return f == Fp8Format::kE4M3 ? 0x7F : 0x7E;
  const std::uint8_t sign = std::signbit(x) ? 0x80 : 0x00;
  const float a = std::fabs(x);
  if (std::isinf(a) && f == Fp8Format::kE5M2) return sign | 0x7C;
  if (!(a < fp8_max(f) * 2.0f)) return sign | p.max_code;  // also +-inf for e4m3
  const int M = p.mant_bits;
  int e = 0;
  std::frexp(a, &e);  // a = fr * 2^e, fr in [0.5, 1): floor(log2 a) = e - 1
  int unbiased = e - 1;
  if (a == 0.0f || unbiased < 1 - p.bias) unbiased = 1 - p.bias;  // subnormal: fixed quantum
  // a / quantum is exact (power-of-two scaling); nearbyint rounds half to even.
  const float m = std::nearbyint(std::ldexp(a, M - unbiased));
  // m in [0, 2^(M+1)]; the code is continuous across subnormal->normal and exponent carries,
  // so biased_exponent * 2^M + mantissa is simply (unbiased + bias - 1) * 2^M + m for normals.
  int code;
  if (m < static_cast<float>(1 << M) && unbiased == 1 - p.bias) {
    code = static_cast<int>(m);  // subnormal (or zero)
  } else {
    code = ((unbiased + p.bias) << M) + (static_cast<int>(m) - (1 << M));
  }
  if (code > p.max_code) code = p.max_code;  // rounding past the max saturates
  return static_cast<std::uint8_t>(sign | code);
}

float fp8_row_scale(const float* x, std::int32_t n, Fp8Format f) noexcept {
  float amax = 0.0f;
  for (std::int32_t j = 0; j < n; ++j) amax = std::max(amax, std::fabs(x[j]));
  return amax / fp8_max(f);
}

void encode_fp8_row(const float* x, std::int32_t n, float scale, Fp8Format f,
                    std::uint8_t* out) noexcept {
  for (std::int32_t j = 0; j < n; ++j) out[j] = f32_to_fp8(scale > 0.0f ? x[j] / scale : 0.0f, f);
}

}  // namespace kvb
