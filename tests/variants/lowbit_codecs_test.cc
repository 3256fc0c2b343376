#include "kernels/lowbit_codecs.h"

#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <vector>

#include "gtest/gtest.h"

namespace kvb {
namespace {

bool is_nan_code(std::uint8_t c, Fp8Format f) {
  const std::uint8_t mag = c & 0x7F;
  return f == Fp8Format::kE4M3 ? mag == 0x7F : mag > 0x7C;
}
bool is_inf_code(std::uint8_t c, Fp8Format f) { return f == Fp8Format::kE5M2 && (c & 0x7F) == 0x7C; }

class Fp8 : public ::testing::TestWithParam<Fp8Format> {};

TEST_P(Fp8, EveryCodeRoundTrips) {
  const Fp8Format f = GetParam();
  for (int c = 0; c < 256; ++c) {
    const auto code = static_cast<std::uint8_t>(c);
    const float x = fp8_to_f32(code, f);
    if (is_nan_code(code, f)) {
      EXPECT_TRUE(std::isnan(x)) << c;
      EXPECT_TRUE(std::isnan(fp8_to_f32(f32_to_fp8(x, f), f)));
      continue;
    }
    EXPECT_EQ(f32_to_fp8(x, f), code) << "code " << c << " value " << x;
  }
}

TEST_P(Fp8, RoundsToNearestEvenAndSaturates) {
  const Fp8Format f = GetParam();
  // Positive finite codes are ordered like their values: check each midpoint and quarter point.
  for (int c = 0; c + 1 < 0x80; ++c) {
    const auto lo = static_cast<std::uint8_t>(c), hi = static_cast<std::uint8_t>(c + 1);
    if (is_nan_code(hi, f) || is_inf_code(hi, f)) break;
    const float a = fp8_to_f32(lo, f), b = fp8_to_f32(hi, f);
    ASSERT_LT(a, b);
    EXPECT_EQ(f32_to_fp8(a + (b - a) * 0.25f, f), lo);
    EXPECT_EQ(f32_to_fp8(a + (b - a) * 0.75f, f), hi);
    EXPECT_EQ(f32_to_fp8(a + (b - a) * 0.5f, f), (c % 2 == 0) ? lo : hi) << "tie at code " << c;
  }
  EXPECT_EQ(fp8_to_f32(f32_to_fp8(1e9f, f), f), fp8_max(f));
  EXPECT_EQ(fp8_to_f32(f32_to_fp8(-1e9f, f), f), -fp8_max(f));
  EXPECT_EQ(f32_to_fp8(-0.0f, f), 0x80);
}

INSTANTIATE_TEST_SUITE_P(Formats, Fp8, ::testing::Values(Fp8Format::kE4M3, Fp8Format::kE5M2));

TEST(Fp8Formats, KnownValues) {
  EXPECT_EQ(fp8_to_f32(0x7E, Fp8Format::kE4M3), 448.0f);
  EXPECT_EQ(fp8_to_f32(0x01, Fp8Format::kE4M3), std::ldexp(1.0f, -9));
  EXPECT_EQ(fp8_to_f32(0x38, Fp8Format::kE4M3), 1.0f);
  EXPECT_EQ(fp8_to_f32(0x7B, Fp8Format::kE5M2), 57344.0f);
  EXPECT_EQ(fp8_to_f32(0x01, Fp8Format::kE5M2), std::ldexp(1.0f, -16));
  EXPECT_EQ(fp8_to_f32(0x3C, Fp8Format::kE5M2), 1.0f);
  EXPECT_TRUE(std::isinf(fp8_to_f32(0x7C, Fp8Format::kE5M2)));
  EXPECT_EQ(f32_to_fp8(std::numeric_limits<float>::infinity(), Fp8Format::kE4M3), 0x7E);
}

TEST(Fp8Formats, ScaledRowErrorWithinHalfUlp) {
  std::mt19937 rng(4);
  std::uniform_real_distribution<float> dist(-3.0f, 3.0f);
  std::vector<float> x(128);
  for (float& v : x) v = dist(rng);
  for (Fp8Format f : {Fp8Format::kE4M3, Fp8Format::kE5M2}) {
    const float scale = fp8_row_scale(x.data(), 128, f);
    std::vector<std::uint8_t> q(128);
    encode_fp8_row(x.data(), 128, scale, f, q.data());
    const int mant = f == Fp8Format::kE4M3 ? 3 : 2;
    for (int j = 0; j < 128; ++j) {
      const float y = fp8_to_f32(q[j], f) * scale;
      // relative half-ulp for normals; the subnormal quantum bounds tiny values
      const float bound = std::fabs(x[j]) * std::ldexp(1.0f, -mant - 1) + scale * std::ldexp(1.0f, -9);
      EXPECT_LE(std::fabs(y - x[j]), bound) << j;
    }
  }
}

TEST(Int4, PacksTwoPerByteLowNibbleFirst) {
  const float x[] = {7.0f, -7.0f, 1.0f, 0.0f, -3.0f};  // scale 1
  float scale = 0;
  std::uint8_t out[3];
  ASSERT_EQ(encode_int4_row(x, 5, 5, &scale, out), Status::kOk);
  EXPECT_EQ(scale, 1.0f);
  EXPECT_EQ(out[0], 0x97);  // 7 low, -7 = 0x9 high
  EXPECT_EQ(out[1], 0x01);
  EXPECT_EQ(out[2], 0x0D);  // -3 = 0xD, odd length: high nibble of the last byte stays 0
  for (int j = 0; j < 5; ++j) EXPECT_EQ(int4_element(out, j), static_cast<int>(x[j]));
  EXPECT_EQ(int4_row_bytes(5), 3);
}

TEST(Int4, GroupScalesBoundTheError) {
  std::mt19937 rng(8);
  std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
  const std::int32_t n = 128;
  std::vector<float> x(n);
  for (std::int32_t j = 0; j < n; ++j) x[j] = dist(rng) * (j < 64 ? 0.01f : 1.0f);
  for (std::int32_t group : {128, 32}) {
    std::vector<float> scales(static_cast<std::size_t>(int4_groups(n, group)));
    std::vector<std::uint8_t> q(static_cast<std::size_t>(int4_row_bytes(n)));
    std::vector<float> y(n);
    ASSERT_EQ(encode_int4_row(x.data(), n, group, scales.data(), q.data()), Status::kOk);
    ASSERT_EQ(decode_int4_row(q.data(), n, group, scales.data(), y.data()), Status::kOk);
    double small_err = 0;
    for (std::int32_t j = 0; j < n; ++j) {
      EXPECT_LE(std::fabs(y[j] - x[j]), scales[j / group] * 0.5f + 1e-7f) << j;
      if (j < 64) small_err = std::max(small_err, double(std::fabs(y[j] - x[j])));
    }
    // Per-token scale crushes the small half of the row; groups of 32 keep it.
    if (group == 32) {
      EXPECT_LT(small_err, 0.001);
    } else {
      EXPECT_GT(small_err, 0.001);
    }
  }
  std::vector<float> zeros(8, 0.0f), s(1), back(8, 1.0f);
  std::uint8_t zq[4];
  ASSERT_EQ(encode_int4_row(zeros.data(), 8, 8, s.data(), zq), Status::kOk);
  ASSERT_EQ(decode_int4_row(zq, 8, 8, s.data(), back.data()), Status::kOk);
  for (float v : back) EXPECT_EQ(v, 0.0f);
}

TEST(Int4, RejectsBadParameters) {
  float x[4] = {}, s[4];
  std::uint8_t q[2];
  EXPECT_EQ(encode_int4_row(x, 0, 4, s, q), Status::kInvalidShape);
  EXPECT_EQ(encode_int4_row(x, 4, 0, s, q), Status::kInvalidShape);
  EXPECT_EQ(encode_int4_row(nullptr, 4, 4, s, q), Status::kNullArgument);
  EXPECT_EQ(decode_int4_row(q, 4, -1, s, x), Status::kInvalidShape);
}

}  // namespace
}  // namespace kvb
