#include "kernels/codecs.h"

#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <vector>

#include "gtest/gtest.h"

namespace kvb {
namespace {

TEST(F16Codec, ExactValuesAndRoundingTiesToEven) {
  EXPECT_EQ(f32_to_f16(0.0f), 0x0000);
  EXPECT_EQ(f32_to_f16(-0.0f), 0x8000);
  EXPECT_EQ(f32_to_f16(1.0f), 0x3c00);
  EXPECT_EQ(f32_to_f16(-2.0f), 0xc000);
  EXPECT_EQ(f32_to_f16(65504.0f), 0x7bff);                 // largest finite half
  EXPECT_EQ(f32_to_f16(1.0f + std::ldexp(1.0f, -11)), 0x3c00);      // tie -> even (down)
  EXPECT_EQ(f32_to_f16(1.0f + 3 * std::ldexp(1.0f, -11)), 0x3c02);  // tie -> even (up)
  EXPECT_EQ(f32_to_f16(1.0f + 1.5f * std::ldexp(1.0f, -11)), 0x3c01);  // above tie -> up
}

TEST(F16Codec, OverflowInfinityAndNaN) {
  EXPECT_EQ(f32_to_f16(65519.0f), 0x7bff);  // below the tie: stays finite
  EXPECT_EQ(f32_to_f16(65520.0f), 0x7c00);  // tie between 65504 and 65536: even is inf
  EXPECT_EQ(f32_to_f16(1e10f), 0x7c00);
  EXPECT_EQ(f32_to_f16(-1e10f), 0xfc00);
  EXPECT_EQ(f32_to_f16(std::numeric_limits<float>::infinity()), 0x7c00);
  EXPECT_EQ(f32_to_f16(-std::numeric_limits<float>::infinity()), 0xfc00);
  const std::uint16_t nan = f32_to_f16(std::numeric_limits<float>::quiet_NaN());
  EXPECT_EQ(nan & 0x7c00, 0x7c00);
  EXPECT_NE(nan & 0x03ff, 0);
  EXPECT_TRUE(std::isnan(f16_to_f32(nan)));
  // A signalling NaN whose payload lives only in low bits must not become infinity.
  EXPECT_NE(f32_to_f16(std::bit_cast<float>(0x7f800001u)) & 0x03ff, 0);
  EXPECT_TRUE(std::isinf(f16_to_f32(0x7c00)));
}

TEST(F16Codec, Subnormals) {
  EXPECT_EQ(f32_to_f16(std::ldexp(1.0f, -14)), 0x0400);  // smallest normal
  EXPECT_EQ(f32_to_f16(std::ldexp(1.0f, -24)), 0x0001);  // smallest subnormal
  EXPECT_EQ(f32_to_f16(std::ldexp(1.0f, -25)), 0x0000);  // tie 0 / 2^-24 -> even 0
  EXPECT_EQ(f32_to_f16(std::ldexp(1.5f, -25)), 0x0001);  // above the tie
  EXPECT_EQ(f32_to_f16(std::ldexp(3.0f, -25)), 0x0002);  // tie 1 / 2 units -> even 2
  EXPECT_EQ(f32_to_f16(std::ldexp(5.0f, -25)), 0x0002);  // tie 2 / 3 units -> even 2
  EXPECT_EQ(f32_to_f16(-std::ldexp(1.0f, -30)), 0x8000);
  EXPECT_EQ(f32_to_f16(std::ldexp(1023.5f, -24)), 0x0400);  // rounds up into the normals
  EXPECT_FLOAT_EQ(f16_to_f32(0x0001), std::ldexp(1.0f, -24));
  EXPECT_FLOAT_EQ(f16_to_f32(0x83ff), -std::ldexp(1023.0f, -24));
}

TEST(F16Codec, EveryHalfRoundTrips) {
  for (std::uint32_t h = 0; h < 0x10000; ++h) {
    const float f = f16_to_f32(static_cast<std::uint16_t>(h));
    if (std::isnan(f)) continue;
    ASSERT_EQ(f32_to_f16(f), h) << "half 0x" << std::hex << h;
  }
}

TEST(Bf16Codec, RoundingOverflowAndNaN) {
  EXPECT_EQ(f32_to_bf16(1.0f), 0x3f80);
  EXPECT_EQ(f32_to_bf16(1.0f + std::ldexp(1.0f, -8)), 0x3f80);      // tie -> even (down)
  EXPECT_EQ(f32_to_bf16(1.0f + 3 * std::ldexp(1.0f, -8)), 0x3f82);  // tie -> even (up)
  EXPECT_EQ(f32_to_bf16(1.0f + std::ldexp(1.0f, -9) * 1.5f), 0x3f80);
  EXPECT_EQ(f32_to_bf16(std::numeric_limits<float>::max()), 0x7f80);  // overflow -> inf
  EXPECT_EQ(f32_to_bf16(-std::numeric_limits<float>::infinity()), 0xff80);
  EXPECT_EQ(f32_to_bf16(std::ldexp(1.0f, -130)), std::bit_cast<std::uint32_t>(std::ldexp(1.0f, -130)) >> 16);
  const std::uint16_t nan = f32_to_bf16(std::bit_cast<float>(0x7f800001u));  // low-payload sNaN
  EXPECT_TRUE(std::isnan(bf16_to_f32(nan)));
  EXPECT_NE(nan & 0x0040, 0);  // quiet
}

TEST(Bf16Codec, EveryBf16RoundTrips) {
  for (std::uint32_t b = 0; b < 0x10000; ++b) {
    const float f = bf16_to_f32(static_cast<std::uint16_t>(b));
    if (std::isnan(f)) continue;
    ASSERT_EQ(f32_to_bf16(f), b) << "bf16 0x" << std::hex << b;
  }
}

TEST(Int8Codec, AllZeroRowHasZeroScaleAndDecodesToZero) {
  const float x[5] = {0, 0, -0.0f, 0, 0};
  const float scale = int8_row_scale(x, 5);
  EXPECT_EQ(scale, 0.0f);
  std::int8_t q[5] = {1, 2, 3, 4, 5};
  encode_int8_row(x, 5, scale, q);
  for (std::int8_t v : q) EXPECT_EQ(v, 0);
}

// The exact product is rounded once: (2.5 - 2^-22) * (1 + 2^-23) = 2.5 + 2^-24 - 2^-45 is above
// the tie, though a float product would round it to 2.5 and then to 2.
TEST(Int8Codec, RoundsTheExactProductOnce) {
  const float scale = 1.0f - std::ldexp(1.0f, -23);
  ASSERT_EQ(1.0f / scale, 1.0f + std::ldexp(1.0f, -23));
  const float x[2] = {2.5f - std::ldexp(1.0f, -22), -(2.5f - std::ldexp(1.0f, -22))};
  std::int8_t q[2];
  encode_int8_row(x, 2, scale, q);
  EXPECT_EQ(q[0], 3);
  EXPECT_EQ(q[1], -3);
}

TEST(Int8Codec, ScaleRoundingAndClamp) {
  const float x[4] = {0.5f, -2.0f, 1.0f, 0.25f};
  EXPECT_FLOAT_EQ(int8_row_scale(x, 4), 2.0f / 127.0f);
  std::int8_t q[4];
  encode_int8_row(x, 4, int8_row_scale(x, 4), q);
  EXPECT_EQ(q[1], -127);
  EXPECT_EQ(q[2], 64);  // 63.5 -> 64 (even)
  const float ties[6] = {2.5f, 3.5f, -2.5f, 0.5f, 300.0f, -300.0f};
  std::int8_t t[6];
  encode_int8_row(ties, 6, 1.0f, t);
  EXPECT_EQ(t[0], 2);
  EXPECT_EQ(t[1], 4);
  EXPECT_EQ(t[2], -2);
  EXPECT_EQ(t[3], 0);
  EXPECT_EQ(t[4], 127);
  EXPECT_EQ(t[5], -127);
}

float p2(int e) { return std::ldexp(1.0f, e); }

TEST(Fp8E4M3Codec, ExactValuesTiesAndSaturation) {
  EXPECT_EQ(f32_to_fp8_e4m3(0.0f), 0x00);
  EXPECT_EQ(f32_to_fp8_e4m3(-0.0f), 0x80);
  EXPECT_EQ(f32_to_fp8_e4m3(1.0f), 0x38);  // 0.0111.000
  EXPECT_EQ(f32_to_fp8_e4m3(-2.0f), 0xC0);
  EXPECT_EQ(f32_to_fp8_e4m3(448.0f), 0x7E);  // max: 0.1111.110
  EXPECT_EQ(f32_to_fp8_e4m3(1.0f + p2(-4)), 0x38);      // tie 1 / 1.125 -> even (down)
  EXPECT_EQ(f32_to_fp8_e4m3(1.0f + 3 * p2(-4)), 0x3A);  // tie 1.125 / 1.25 -> even (up)
  EXPECT_EQ(f32_to_fp8_e4m3(1.0f + 1.5f * p2(-4)), 0x39);
  EXPECT_EQ(f32_to_fp8_e4m3(15.5f), 0x58);  // tie 15 / 16 -> 16 (even), carried into the next binade
  // Saturation: anything that would round beyond 448 (or is infinite) becomes +-448, never NaN.
  EXPECT_EQ(f32_to_fp8_e4m3(463.0f), 0x7E);
  EXPECT_EQ(f32_to_fp8_e4m3(464.0f), 0x7E);  // tie 448 / 480 (480 is the NaN code)
  EXPECT_EQ(f32_to_fp8_e4m3(1e6f), 0x7E);
  EXPECT_EQ(f32_to_fp8_e4m3(-1e30f), 0xFE);
  EXPECT_EQ(f32_to_fp8_e4m3(std::numeric_limits<float>::infinity()), 0x7E);
  EXPECT_EQ(f32_to_fp8_e4m3(-std::numeric_limits<float>::infinity()), 0xFE);
  EXPECT_EQ(f32_to_fp8_e4m3(std::numeric_limits<float>::quiet_NaN()) & 0x7F, 0x7F);
  EXPECT_TRUE(std::isnan(fp8_e4m3_to_f32(0x7F)));
  EXPECT_TRUE(std::isnan(fp8_e4m3_to_f32(0xFF)));
  EXPECT_EQ(fp8_e4m3_to_f32(0x7E), 448.0f);
  EXPECT_EQ(fp8_e4m3_to_f32(0xFE), -448.0f);
}

TEST(Fp8E4M3Codec, Subnormals) {
  EXPECT_EQ(f32_to_fp8_e4m3(p2(-6)), 0x08);          // smallest normal
  EXPECT_EQ(f32_to_fp8_e4m3(p2(-9)), 0x01);          // smallest subnormal
  EXPECT_EQ(f32_to_fp8_e4m3(p2(-10)), 0x00);         // tie 0 / 2^-9 -> even 0
  EXPECT_EQ(f32_to_fp8_e4m3(1.5f * p2(-10)), 0x01);  // above the tie
  EXPECT_EQ(f32_to_fp8_e4m3(3.0f * p2(-10)), 0x02);  // tie 1 / 2 units -> even 2
  EXPECT_EQ(f32_to_fp8_e4m3(7.5f * p2(-9)), 0x08);   // tie 7 / 8 units -> 8 = smallest normal
  EXPECT_EQ(f32_to_fp8_e4m3(-p2(-30)), 0x80);
  EXPECT_EQ(f32_to_fp8_e4m3(std::numeric_limits<float>::denorm_min()), 0x00);
  EXPECT_EQ(fp8_e4m3_to_f32(0x01), p2(-9));
  EXPECT_EQ(fp8_e4m3_to_f32(0x87), -7.0f * p2(-9));
}

TEST(Fp8E5M2Codec, ExactValuesInfinityNaNAndSaturation) {
  EXPECT_EQ(f32_to_fp8_e5m2(1.0f), 0x3C);  // 0.01111.00
  EXPECT_EQ(f32_to_fp8_e5m2(57344.0f), 0x7B);  // max: 0.11110.11
  EXPECT_EQ(f32_to_fp8_e5m2(1.0f + p2(-3)), 0x3C);      // tie -> even (down)
  EXPECT_EQ(f32_to_fp8_e5m2(1.0f + 3 * p2(-3)), 0x3E);  // tie -> even (up)
  EXPECT_EQ(f32_to_fp8_e5m2(61440.0f), 0x7B);  // tie 57344 / 65536: saturates, not inf
  EXPECT_EQ(f32_to_fp8_e5m2(1e9f), 0x7B);
  EXPECT_EQ(f32_to_fp8_e5m2(-1e9f), 0xFB);
  EXPECT_EQ(f32_to_fp8_e5m2(std::numeric_limits<float>::infinity()), 0x7C);  // inf kept
  EXPECT_EQ(f32_to_fp8_e5m2(-std::numeric_limits<float>::infinity()), 0xFC);
  const std::uint8_t nan = f32_to_fp8_e5m2(std::numeric_limits<float>::quiet_NaN());
  EXPECT_EQ(nan & 0x7C, 0x7C);
  EXPECT_NE(nan & 0x03, 0);
  EXPECT_TRUE(std::isinf(fp8_e5m2_to_f32(0x7C)));
  EXPECT_LT(fp8_e5m2_to_f32(0xFC), 0.0f);
  for (std::uint8_t c : {0x7D, 0x7E, 0x7F, 0xFD}) EXPECT_TRUE(std::isnan(fp8_e5m2_to_f32(c)));
  EXPECT_EQ(f32_to_fp8_e5m2(p2(-16)), 0x01);  // smallest subnormal
  EXPECT_EQ(f32_to_fp8_e5m2(p2(-17)), 0x00);  // tie -> even 0
  EXPECT_EQ(f32_to_fp8_e5m2(3.0f * p2(-17)), 0x02);
  EXPECT_EQ(f32_to_fp8_e5m2(p2(-14)), 0x04);  // smallest normal
}

// Every non-NaN code decodes to a value that encodes back to the same code; E5M2 decodes exactly
// like the high byte of an fp16 (which the fast kernel relies on).
TEST(Fp8Codec, EveryCodeRoundTrips) {
  for (int c = 0; c < 256; ++c) {
    const auto code = static_cast<std::uint8_t>(c);
    const float a = fp8_e4m3_to_f32(code);
    if (!std::isnan(a)) {
      EXPECT_EQ(f32_to_fp8_e4m3(a), code) << "e4m3 0x" << std::hex << c;
    }
    const float b = fp8_e5m2_to_f32(code);
    const float h = f16_to_f32(static_cast<std::uint16_t>(c << 8));
    EXPECT_TRUE(b == h || (std::isnan(b) && std::isnan(h))) << "e5m2 0x" << std::hex << c;
    if (!std::isnan(b)) {
      EXPECT_EQ(f32_to_fp8_e5m2(b), code) << "e5m2 0x" << std::hex << c;
    }
  }
  // Decoded values are strictly increasing over the positive finite codes (no gaps or overlaps).
  for (int c = 1; c <= 0x7E; ++c) EXPECT_LT(fp8_e4m3_to_f32(c - 1), fp8_e4m3_to_f32(c)) << c;
  for (int c = 1; c <= 0x7C; ++c) EXPECT_LT(fp8_e5m2_to_f32(c - 1), fp8_e5m2_to_f32(c)) << c;
}

// Encoding is round-to-nearest: no code lies closer to x than the one chosen.
TEST(Fp8Codec, EncodingPicksTheNearestCode) {
  std::mt19937 rng(3);
  std::uniform_real_distribution<float> mant(1.0f, 2.0f);
  std::uniform_int_distribution<int> expo(-20, 16);
  for (int i = 0; i < 20000; ++i) {
    const float x = std::ldexp(mant(rng), expo(rng)) * (i % 2 ? -1.0f : 1.0f);
    for (bool e4 : {true, false}) {
      const float fmax = e4 ? kFp8E4M3Max : kFp8E5M2Max;
      const float got = e4 ? fp8_e4m3_to_f32(f32_to_fp8_e4m3(x)) : fp8_e5m2_to_f32(f32_to_fp8_e5m2(x));
      if (std::fabs(x) >= fmax) {
        EXPECT_EQ(got, std::copysign(fmax, x));
        continue;
      }
      const double err = std::fabs(double(got) - x);
      for (int c = 0; c < 256; ++c) {
        const float y = e4 ? fp8_e4m3_to_f32(static_cast<std::uint8_t>(c))
                           : fp8_e5m2_to_f32(static_cast<std::uint8_t>(c));
        if (std::isfinite(y)) {
          ASSERT_LE(err, std::fabs(double(y) - x)) << x;
        }
      }
    }
  }
}

// Every tie between adjacent positive codes goes to the even code; quarter points to the
// nearer one (moved here from the retired lowbit_codecs test).
TEST(Fp8Codec, EveryTieRoundsToEven) {
  for (bool e4 : {true, false}) {
    const auto decode = [&](int c) {
      return e4 ? fp8_e4m3_to_f32(static_cast<std::uint8_t>(c))
                : fp8_e5m2_to_f32(static_cast<std::uint8_t>(c));
    };
    const auto encode = [&](float x) { return e4 ? f32_to_fp8_e4m3(x) : f32_to_fp8_e5m2(x); };
    const int last = e4 ? 0x7E : 0x7B;  // largest finite code
    for (int c = 0; c < last; ++c) {
      const float a = decode(c), b = decode(c + 1);
      ASSERT_LT(a, b);
      EXPECT_EQ(encode(a + (b - a) * 0.25f), c) << e4 << " " << c;
      EXPECT_EQ(encode(a + (b - a) * 0.75f), c + 1) << e4 << " " << c;
      EXPECT_EQ(encode(a + (b - a) * 0.5f), c % 2 == 0 ? c : c + 1) << "tie at " << e4 << " " << c;
    }
  }
}

TEST(Fp8Codec, RowScaleUsesTheFullRange) {
  const float x[4] = {0.5f, -3.0f, 1.0f, 0.0f};
  EXPECT_EQ(fp8_e4m3_row_scale(x, 4), 3.0f / 448.0f);
  EXPECT_EQ(fp8_e5m2_row_scale(x, 4), 3.0f / 57344.0f);
  std::uint8_t q[4];
  encode_fp8_e4m3_row(x, 4, fp8_e4m3_row_scale(x, 4), q);
  EXPECT_EQ(q[1], 0xFE);  // -max
  encode_fp8_e5m2_row(x, 4, fp8_e5m2_row_scale(x, 4), q);
  EXPECT_EQ(q[1], 0xFB);
  const float zeros[3] = {0.0f, -0.0f, 0.0f};
  EXPECT_EQ(fp8_e4m3_row_scale(zeros, 3), 0.0f);
  std::uint8_t z[3] = {9, 9, 9};
  encode_fp8_e4m3_row(zeros, 3, 0.0f, z);
  for (std::uint8_t b : z) EXPECT_EQ(b, 0);
}

TEST(Int4Codec, NibblePackingRoundingAndClamp) {
  // scale 1: q = x rounded to nearest even, clamped to [-7, 7]; NaN -> 0.
  const float x[10] = {1.0f, -1.0f, 2.5f, 3.5f, -2.5f, 0.5f, 9.0f, -9.0f,
                       std::numeric_limits<float>::quiet_NaN(), -7.0f};
  std::uint8_t b[5];
  encode_int4_row(x, 10, 1.0f, b);
  EXPECT_EQ(b[0], 0xF1);  // element 0 (1) low, element 1 (-1 = 0xF) high
  EXPECT_EQ(b[1], 0x42);  // 2.5 -> 2, 3.5 -> 4
  EXPECT_EQ(b[2], 0x0E);  // -2.5 -> -2 (0xE), 0.5 -> 0
  EXPECT_EQ(b[3], 0x97);  // 9 -> 7, -9 -> -7 (0x9)
  EXPECT_EQ(b[4], 0x90);  // NaN -> 0, -7 -> 0x9
  const int expect[10] = {1, -1, 2, 4, -2, 0, 7, -7, 0, -7};
  for (int j = 0; j < 10; ++j) EXPECT_EQ(int4_unpack(b, j), expect[j]) << j;
  const std::uint8_t m8 = 0x8F;
  EXPECT_EQ(int4_unpack(&m8, 0), -1);
  EXPECT_EQ(int4_unpack(&m8, 1), -8);  // decodable, though the encoder never writes -8
}

TEST(Int4Codec, RowScaleAndZeroRow) {
  const float x[4] = {0.5f, -3.5f, 1.0f, 0.25f};
  const float scale = int4_row_scale(x, 4);
  EXPECT_EQ(scale, 3.5f / 7.0f);
  std::uint8_t b[2];
  encode_int4_row(x, 4, scale, b);
  EXPECT_EQ(int4_unpack(b, 0), 1);
  EXPECT_EQ(int4_unpack(b, 1), -7);
  EXPECT_EQ(int4_unpack(b, 2), 2);
  EXPECT_EQ(int4_unpack(b, 3), 0);  // 0.5 -> 0 (tie, even)
  const float zeros[2] = {0.0f, -0.0f};
  EXPECT_EQ(int4_row_scale(zeros, 2), 0.0f);
  std::uint8_t z = 0x55;
  encode_int4_row(zeros, 2, 0.0f, &z);
  EXPECT_EQ(z, 0);
}

// Storage rounding bound vs the fp32 original, per element, for a row with scale s = max|x| / F:
//   fp8: |x^ - x| <= max(2^-(M+1) |x|, 2^(emin-M-1) s)   (half a quantum: relative for normals,
//        absolute below the smallest normal), hence <= max|x| / 28 (e4m3), / 14 (e5m2);
//   int4: |x^ - x| <= s / 2 = max|x| / 14.
// The slack (1 + 2^-16) covers the multiply by s and the encoders' x * (1/s): within 2^-23
// relative of x / s, so a value that close to a rounding boundary may take the neighbouring
// code, |x/s| * 2^-23 quanta past half a quantum: <= 2^-19 of the bound for int4 (|x/s| <= 7)
// and for fp8 subnormals (|x/s| below the smallest normal).
TEST(LowPrecisionStorage, RoundingBoundVsFp32Original) {
  std::mt19937 rng(9);
  std::uniform_real_distribution<float> u(-1.0f, 1.0f);
  std::uniform_int_distribution<int> expo(-30, 10);
  const double slack = 1.0 + std::ldexp(1.0, -16);
  for (int row = 0; row < 500; ++row) {
    std::vector<float> x(64);
    // Wide dynamic range in a row so small elements reach the fp8 subnormals.
    for (float& v : x) v = std::ldexp(u(rng), row % 2 ? expo(rng) : 0);
    float amax = 0;
    for (float v : x) amax = std::max(amax, std::fabs(v));
    std::vector<std::uint8_t> q(64);
    const float s4 = fp8_e4m3_row_scale(x.data(), 64);
    encode_fp8_e4m3_row(x.data(), 64, s4, q.data());
    for (int j = 0; j < 64; ++j) {
      const double err = std::fabs(double(fp8_e4m3_to_f32(q[j])) * s4 - x[j]);
      ASSERT_LE(err, std::max(std::ldexp(std::fabs(double(x[j])), -4), std::ldexp(double(s4), -10)) * slack);
      ASSERT_LE(err, amax / 28.0 * slack);
    }
    const float s5 = fp8_e5m2_row_scale(x.data(), 64);
    encode_fp8_e5m2_row(x.data(), 64, s5, q.data());
    for (int j = 0; j < 64; ++j) {
      const double err = std::fabs(double(fp8_e5m2_to_f32(q[j])) * s5 - x[j]);
      ASSERT_LE(err, std::max(std::ldexp(std::fabs(double(x[j])), -3), std::ldexp(double(s5), -17)) * slack);
      ASSERT_LE(err, amax / 14.0 * slack);
    }
    const float si = int4_row_scale(x.data(), 64);
    encode_int4_row(x.data(), 64, si, q.data());
    for (int j = 0; j < 64; ++j) {
      const double err = std::fabs(double(int4_unpack(q.data(), j)) * si - x[j]);
      ASSERT_LE(err, amax / 14.0 * slack);
    }
  }
}

}  // namespace
}  // namespace kvb
