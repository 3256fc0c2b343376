#include "kernels/recompute.h"

#include <cmath>
#include <vector>

#include "gtest/gtest.h"
#include "kernels/gemm.h"
#include "kernels/variant_costs.h"
#include "tests/variants/variant_fixtures.h"

namespace kvb {
namespace {

using testing::OwnedCache;

std::vector<double> gemm_double(const std::vector<float>& a, const std::vector<float>& b,
                                std::int64_t m, std::int64_t k, std::int64_t n) {
  std::vector<double> c(static_cast<std::size_t>(m * n), 0.0);
  for (std::int64_t i = 0; i < m; ++i)
    for (std::int64_t kk = 0; kk < k; ++kk)
      for (std::int64_t j = 0; j < n; ++j) c[i * n + j] += double(a[i * k + kk]) * b[kk * n + j];
  return c;
}

TEST(Gemm, MatchesDoubleOnOddShapes) {
  std::mt19937 rng(11);
  for (auto [m, k, n] : {std::tuple<std::int64_t, std::int64_t, std::int64_t>{7, 300, 37},
                         {1, 1024, 64}, {9, 5, 129}, {4, 513, 16}}) {
    const auto a = testing::random_floats(static_cast<std::size_t>(m * k), rng);
    const auto b = testing::random_floats(static_cast<std::size_t>(k * n), rng);
    std::vector<float> c(static_cast<std::size_t>(m * n), -1.0f);
    ASSERT_EQ(gemm_f32(a.data(), b.data(), c.data(), m, k, n), Status::kOk);
    const auto ref = gemm_double(a, b, m, k, n);
    // |terms| <= 1, k terms: fp32 accumulation error well under k * 2^-24 * sqrt-ish growth.
    EXPECT_LE(testing::max_abs_diff(c, ref), 1e-6 * k) << m << "x" << k << "x" << n;
  }
  EXPECT_EQ(gemm_f32(nullptr, nullptr, nullptr, -1, 2, 2), Status::kInvalidShape);
  float x = 0;
  EXPECT_EQ(gemm_f32(nullptr, &x, &x, 1, 1, 1), Status::kNullArgument);
}

TEST(Recompute, MatchesReferenceOnProjectedCache) {
  const std::int32_t hidden = 96;
  const std::int64_t tokens = 77;
  OwnedCache cache(testing::small_shape(8, 2, 64, tokens, DType::kF32));
  ASSERT_EQ(cache.status(), Status::kOk);
  const CacheShape& s = cache.geometry().shape();
  const std::int64_t n = std::int64_t{s.kv_heads} * s.head_dim;
  std::mt19937 rng(21);
  const auto x = testing::random_floats(static_cast<std::size_t>(tokens * hidden), rng);
  // Weights ~ 1/sqrt(hidden) keep K and V of order 1, like a trained projection.
  const float w = 1.7f / std::sqrt(float(hidden));
  const auto wk = testing::random_floats(static_cast<std::size_t>(hidden * n), rng, -w, w);
  const auto wv = testing::random_floats(static_cast<std::size_t>(hidden * n), rng, -w, w);
  // The reference cache holds the double-precision projections (rounded once to fp32).
  const auto kd = gemm_double(x, wk, tokens, hidden, n);
  const auto vd = gemm_double(x, wv, tokens, hidden, n);
  testing::TokenRows rows{std::vector<float>(kd.begin(), kd.end()), std::vector<float>(vd.begin(), vd.end())};
  testing::append_all(cache.view(), 0, rows, tokens);
  const auto q = testing::random_floats(static_cast<std::size_t>(s.q_heads) * s.head_dim, rng, -2.0f, 2.0f);

  std::vector<float> out(q.size(), -7.0f);
  std::vector<float> ws(static_cast<std::size_t>(recompute_workspace_floats(s, tokens)));
  ASSERT_EQ(recompute_decode_attention(s, x.data(), tokens, hidden, wk.data(), wv.data(), q.data(),
                                       1.0f / std::sqrt(float(s.head_dim)), out.data(), ws.data()),
            Status::kOk);
  const auto ref = testing::reference(cache.view(), 0, tokens, q.data());
  EXPECT_LE(testing::max_abs_diff(out, ref), 1e-4);  // kernel tolerance + fp32 GEMM rounding
}

TEST(Recompute, RejectsBadParameters) {
  const CacheShape s = testing::small_shape(8, 2, 64, 16, DType::kF32);
  std::vector<float> buf(4096, 0.1f);
  EXPECT_EQ(recompute_decode_attention(s, buf.data(), 0, 8, buf.data(), buf.data(), buf.data(), 1.0f,
                                       buf.data(), buf.data()),
            Status::kInvalidShape);
  EXPECT_EQ(recompute_decode_attention(s, nullptr, 4, 8, buf.data(), buf.data(), buf.data(), 1.0f,
                                       buf.data(), buf.data()),
            Status::kNullArgument);
}

TEST(Recompute, CostGrowsQuadraticallyOverAGeneration) {
  const CacheShape s = testing::small_shape(16, 8, 128, 4096, DType::kF32);
  // Per step, recompute flops grow linearly with T (so a generation is O(T^2)); the cached step
  // projects one token and its attention term alone grows with T.
  const Cost r1 = recompute_cost(s, 1024, 1024), r2 = recompute_cost(s, 1024, 2048);
  EXPECT_NEAR(double(r2.flops) / double(r1.flops), 2.0, 0.01);
  const Cost c1 = cached_projection_step_cost(s, 1024, 1024);
  EXPECT_GT(r1.flops, 500 * c1.flops / 2);
}

}  // namespace
}  // namespace kvb
