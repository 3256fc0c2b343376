#include "kernels/chunked_attention.h"

#include <cmath>
#include <tuple>
#include <vector>

#include "gtest/gtest.h"
#include "kernels/attention.h"
#include "kernels/variant_costs.h"
#include "tests/variants/variant_fixtures.h"

namespace kvb {
namespace {

using testing::OwnedCache;

// prefix, tq, q_heads, kv_heads, dtype, layout
using ChunkCase = std::tuple<std::int64_t, std::int32_t, std::int32_t, std::int32_t, DType, Layout>;
class ChunkSweep : public ::testing::TestWithParam<ChunkCase> {};

TEST_P(ChunkSweep, EveryQueryMatchesCausalReference) {
  const auto [prefix, tq, qh, kvh, dtype, layout] = GetParam();
  const std::int64_t capacity = prefix + tq + 2;  // rows past the chunk must be ignored
  OwnedCache cache(testing::small_shape(qh, kvh, 64, capacity, dtype, layout));
  ASSERT_EQ(cache.status(), Status::kOk);
  const CacheShape& s = cache.geometry().shape();
  std::mt19937 rng(static_cast<unsigned>(prefix * 31 + tq));
  const std::int32_t layer = 0;
  testing::append_all(cache.view(), layer, testing::random_tokens(capacity, s, rng), capacity);
  const std::size_t token = static_cast<std::size_t>(s.q_heads) * s.head_dim;
  const auto q = testing::random_floats(tq * token, rng, -3.0f, 3.0f);
  std::vector<float> out(q.size(), -7.0f);
  std::vector<float> ws(static_cast<std::size_t>(chunked_attention_workspace_floats(s, tq)));
  ASSERT_EQ(chunked_decode_attention(cache.view(), layer, prefix, tq, q.data(),
                                     1.0f / std::sqrt(float(s.head_dim)), out.data(), ws.data()),
            Status::kOk);
  for (std::int32_t i = 0; i < tq; ++i) {
    const auto ref = testing::reference(cache.view(), layer, prefix + i + 1, q.data() + i * token);
    EXPECT_LE(testing::max_abs_diff(out, ref, i * token), testing::kKernelTol) << "query " << i;
  }
}

INSTANTIATE_TEST_SUITE_P(
    PrefixesAndChunks, ChunkSweep,
    ::testing::Values(ChunkCase{0, 1, 8, 2, DType::kF32, Layout::kHeadMajor},   // start of cache
                      ChunkCase{0, 8, 8, 2, DType::kF32, Layout::kHeadMajor},   // chunk only
                      ChunkCase{5, 4, 16, 8, DType::kF16, Layout::kHeadMajor},
                      ChunkCase{100, 8, 8, 2, DType::kI8, Layout::kPositionMajor},
                      ChunkCase{300, 1, 16, 8, DType::kBF16, Layout::kHeadMajor},
                      ChunkCase{77, 20, 8, 2, DType::kF32, Layout::kHeadMajor}));  // 80 heads: >1 pass

TEST(ChunkedAttention, SingleQueryEqualsDecode) {
  OwnedCache cache(testing::small_shape(16, 8, 128, 64, DType::kF32));
  ASSERT_EQ(cache.status(), Status::kOk);
  const CacheShape& s = cache.geometry().shape();
  std::mt19937 rng(5);
  testing::append_all(cache.view(), 1, testing::random_tokens(64, s, rng), 64);
  const auto q = testing::random_floats(static_cast<std::size_t>(s.q_heads) * s.head_dim, rng);
  std::vector<float> a(q.size()), b(q.size());
  std::vector<float> ws(static_cast<std::size_t>(chunked_attention_workspace_floats(s, 1)));
  ASSERT_EQ(chunked_decode_attention(cache.view(), 1, 40, 1, q.data(), 0.1f, a.data(), ws.data()),
            Status::kOk);
  ASSERT_EQ(decode_attention(cache.view(), 1, 41, q.data(), 0.1f, b.data(), ws.data()), Status::kOk);
  EXPECT_LE(testing::max_abs_diff(a, b), 1e-6);
}

TEST(ChunkedAttention, RejectsBadParameters) {
  OwnedCache cache(testing::small_shape(8, 2, 64, 16, DType::kF32));
  const CacheShape& s = cache.geometry().shape();
  std::vector<float> q(8 * s.q_heads * s.head_dim), out(q.size());
  std::vector<float> ws(static_cast<std::size_t>(chunked_attention_workspace_floats(s, 8)));
  EXPECT_EQ(chunked_decode_attention(cache.view(), 0, 4, 0, q.data(), 1.0f, out.data(), ws.data()),
            Status::kInvalidShape) << "tq = 0";
  EXPECT_EQ(chunked_decode_attention(cache.view(), 0, 9, 8, q.data(), 1.0f, out.data(), ws.data()),
            Status::kOutOfRange) << "chunk past capacity";
  EXPECT_EQ(chunked_decode_attention(cache.view(), 0, -1, 2, q.data(), 1.0f, out.data(), ws.data()),
            Status::kOutOfRange);
  EXPECT_EQ(chunked_decode_attention(cache.view(), 2, 0, 2, q.data(), 1.0f, out.data(), ws.data()),
            Status::kOutOfRange) << "layer";
  EXPECT_EQ(chunked_decode_attention(cache.view(), 0, 0, 2, q.data(), 1.0f, out.data(), nullptr),
            Status::kNullArgument);
}

TEST(ChunkedAttention, CostReadsRowsOnce) {
  const CacheShape s = testing::small_shape(16, 8, 128, 2048, DType::kF32);
  const Cost one = chunked_attention_cost(s, 1000, 1);
  const Cost eight = chunked_attention_cost(s, 1000, 8);
  EXPECT_EQ(one.bytes_read, attention_cost(s, 1001).bytes_read);
  EXPECT_EQ(one.flops, attention_cost(s, 1001).flops);
  // 7 more rows of K and V and 7 more query tokens; flops grow ~8x.
  EXPECT_EQ(eight.bytes_read - one.bytes_read, 7 * (2 * 8 * 128 * 4) + 7 * 16 * 128 * 4);
  EXPECT_GT(eight.flops, 7 * one.flops);
}

}  // namespace
}  // namespace kvb
