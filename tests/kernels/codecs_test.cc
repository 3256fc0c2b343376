#include "kernels/codecs.h"

#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>

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

}  // namespace
}  // namespace kvb
