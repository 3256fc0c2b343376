// The exact int8 limb form of a query (kernels/query_limbs.h), checked without AMX: the tile
// layout is read back through a plain emulation of TDPBSSD (C[m][n] += sum over the four bytes
// of dword kk of A[m][4kk + i] * B[kk][4n + i]), so these run on every CPU.
#include "kernels/query_limbs.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <memory>
#include <random>
#include <vector>

#include "gtest/gtest.h"

namespace kvb {
namespace {

// One 64-dim chunk of TDPBSSD for one A row (64 int8 of a K row) against B tile `b`.
void emulate_tdpbssd_row(const std::int8_t* a_row, const std::int8_t* b, std::int32_t heads,
                         std::int32_t* c_row) {
  for (std::int32_t n = 0; n < heads; ++n)
    for (int kk = 0; kk < 16; ++kk)
      for (int i = 0; i < 4; ++i)
        c_row[n] += std::int32_t{a_row[4 * kk + i]} * std::int32_t{b[kk * 64 + 4 * n + i]};
}

// q_g . k as the AMX path computes it: u_g * combine(S2, S1, S0).
std::vector<double> limb_dots(const QueryLimbs& l, const std::int8_t* k) {
  std::vector<double> dots(static_cast<std::size_t>(l.heads));
  std::int32_t sums[kQueryLimbs][kLimbTileHeads] = {};
  for (int limb = 0; limb < kQueryLimbs; ++limb)
    for (std::int32_t c = 0; c < l.chunks; ++c)
      emulate_tdpbssd_row(k + c * kLimbChunkDims, l.tiles[limb][c], l.heads, sums[limb]);
  for (std::int32_t g = 0; g < l.heads; ++g)
    dots[static_cast<std::size_t>(g)] =
        l.unit[g] * double(combine_limb_sums(sums[2][g], sums[1][g], sums[0][g]));
  return dots;
}

double max_abs(const float* q, std::int32_t n) {
  double m = 0;
  for (std::int32_t i = 0; i < n; ++i) m = std::max(m, std::fabs(double(q[i])));
  return m;
}

std::vector<std::int8_t> random_row(std::int32_t d, std::mt19937& rng) {
  std::uniform_int_distribution<int> dist(-128, 127);
  std::vector<std::int8_t> k(static_cast<std::size_t>(d));
  for (auto& x : k) x = static_cast<std::int8_t>(dist(rng));
  k[0] = -128;  // the extremes of the K codes
  k[1] = 127;
  return k;
}

TEST(QueryLimbs, ShapesOutsideTheTilesAreRefused) {
  auto l = std::make_unique<QueryLimbs>();
  std::vector<float> q(17 * 320, 0.5f);
  EXPECT_TRUE(quantise_query_limbs(q.data(), 16, 256, *l));
  EXPECT_FALSE(quantise_query_limbs(q.data(), 17, 64, *l));   // more heads than tile columns
  EXPECT_FALSE(quantise_query_limbs(q.data(), 0, 64, *l));
  EXPECT_FALSE(quantise_query_limbs(q.data(), 2, 80, *l));    // not a multiple of 64
  EXPECT_FALSE(quantise_query_limbs(q.data(), 2, 320, *l));   // more than 4 chunks
  EXPECT_FALSE(quantise_query_limbs(nullptr, 2, 64, *l));
  q[70] = std::numeric_limits<float>::infinity();
  EXPECT_FALSE(quantise_query_limbs(q.data(), 2, 64, *l));
  q[70] = std::numeric_limits<float>::quiet_NaN();
  EXPECT_FALSE(quantise_query_limbs(q.data(), 2, 64, *l));
}

// The limbs are balanced digits that rebuild the rounded query exactly, within fp32's own
// rounding of the head's largest element, at every magnitude (subnormal to near FLT_MAX).
TEST(QueryLimbs, LimbsRebuildTheQueryExactlyAtEveryMagnitude) {
  std::mt19937 rng(7);
  const float magnitudes[] = {1e-42f, 1e-30f, 1e-3f, 1.0f, 3.0f, 1e6f, 1e30f, 3e38f};
  auto l = std::make_unique<QueryLimbs>();
  for (const float mag : magnitudes) {
    const std::int32_t heads = 5, d = 128;
    std::uniform_real_distribution<float> dist(-1.0f, 1.0f);  // (hi - lo would overflow at 3e38)
    std::vector<float> q(static_cast<std::size_t>(heads) * d);
    for (float& x : q) x = mag * dist(rng);
    q[3] = mag;  // the largest element itself must land on the limb range's edge (2^22)
    ASSERT_TRUE(quantise_query_limbs(q.data(), heads, d, *l)) << mag;
    for (std::int32_t g = 0; g < heads; ++g) {
      const double m = max_abs(q.data() + g * d, d);
      ASSERT_GT(l->unit[g], 0.0);
      for (std::int32_t i = 0; i < d; ++i) {
        const int l0 = query_limb(*l, 0, g, i), l1 = query_limb(*l, 1, g, i),
                  l2 = query_limb(*l, 2, g, i);
        EXPECT_GE(l2, -64);
        EXPECT_LE(l2, 64);
        const std::int64_t Q = std::int64_t{l2} * 65536 + l1 * 256 + l0;
        ASSERT_LE(std::llabs(Q), 4194304);
        const double err = std::fabs(double(q[g * d + i]) - l->unit[g] * double(Q));
        EXPECT_LE(err, m * std::ldexp(1.0, -23) * 1.0000001) << mag << " g" << g << " i" << i;
      }
    }
    EXPECT_EQ(std::llabs(std::int64_t{query_limb(*l, 2, 0, 3)} * 65536 +
                         query_limb(*l, 1, 0, 3) * 256 + query_limb(*l, 0, 0, 3)),
              4194304);
  }
}

TEST(QueryLimbs, AllZeroHeadHasZeroLimbsAndUnit) {
  auto l = std::make_unique<QueryLimbs>();
  std::vector<float> q(3 * 64, 0.25f);
  std::fill(q.begin() + 64, q.begin() + 128, 0.0f);
  q[64] = -0.0f;
  ASSERT_TRUE(quantise_query_limbs(q.data(), 3, 64, *l));
  EXPECT_EQ(l->unit[1], 0.0);
  EXPECT_GT(l->unit[0], 0.0);
  for (int limb = 0; limb < kQueryLimbs; ++limb)
    for (std::int32_t i = 0; i < 64; ++i) EXPECT_EQ(query_limb(*l, limb, 1, i), 0);
  std::mt19937 rng(3);
  const auto k = random_row(64, rng);
  EXPECT_EQ(limb_dots(*l, k.data())[1], 0.0);
}

// Columns of heads past `heads` are zero, so a tile configured for `heads` columns reads nothing
// stale (and a wider one would add zeros).
TEST(QueryLimbs, UnusedTileColumnsAreZero) {
  auto l = std::make_unique<QueryLimbs>();
  std::vector<float> q(16 * 256, 1.0f);
  ASSERT_TRUE(quantise_query_limbs(q.data(), 16, 256, *l));  // fill every byte once
  ASSERT_TRUE(quantise_query_limbs(q.data(), 3, 128, *l));
  for (int limb = 0; limb < kQueryLimbs; ++limb)
    for (int c = 0; c < kLimbMaxChunks; ++c)
      for (int kk = 0; kk < 16; ++kk)
        for (int b = 0; b < 64; ++b)
          if (c >= 2 || b >= 3 * 4) {
            EXPECT_EQ(l->tiles[limb][c][kk * 64 + b], 0) << limb << " " << c << " " << kk << " " << b;
          }
}

// The tile layout, read through the emulated TDPBSSD, gives q . k for every head and chunk
// count: the error is the query's rounding (sum |k_i| * m * 2^-23) plus fp32's rounding of the
// combination. A misplaced byte would be off by about m * |k_i|, far outside.
TEST(QueryLimbs, EmulatedTileProductsGiveTheDotProducts) {
  std::mt19937 rng(11);
  auto l = std::make_unique<QueryLimbs>();
  for (const std::int32_t heads : {1, 2, 4, 8, 16}) {
    for (const std::int32_t d : {64, 128, 192, 256}) {
      for (const float mag : {1e-20f, 3.0f, 1e20f}) {
        std::uniform_real_distribution<float> dist(-mag, mag);
        std::vector<float> q(static_cast<std::size_t>(heads) * d);
        for (float& x : q) x = dist(rng);
        ASSERT_TRUE(quantise_query_limbs(q.data(), heads, d, *l));
        const auto k = random_row(d, rng);
        const auto dots = limb_dots(*l, k.data());
        for (std::int32_t g = 0; g < heads; ++g) {
          double exact = 0, k_abs = 0;
          for (std::int32_t i = 0; i < d; ++i) {
            exact += double(q[g * d + i]) * k[i];
            k_abs += std::fabs(double(k[i]));
          }
          const double m = max_abs(q.data() + g * d, d);
          // Limb sums weigh at most (64 * 65536 + 128 * 257) |k_i| < 1.01 * 2^22 |k_i| units of
          // m / 2^22, and the combination rounds twice: 2 * 2^-24 * 1.01 * m * sum |k_i|.
          const double tol = k_abs * m * (std::ldexp(1.0, -23) + 2.02 * std::ldexp(1.0, -24));
          EXPECT_NEAR(dots[static_cast<std::size_t>(g)], exact, tol)
              << "heads " << heads << " d " << d << " mag " << mag << " g " << g;
        }
      }
    }
  }
}

}  // namespace
}  // namespace kvb
