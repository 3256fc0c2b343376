// Shared helpers for the variant tests: random token rows, reference outputs, error measures.
#pragma once
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <random>
#include <vector>

#include "gtest/gtest.h"
#include "kernels/attention.h"
#include "kernels/cache_write.h"
#include "tests/kernels/test_cache.h"

namespace kvb::testing {

// fp32 arithmetic vs the double reference on the same stored rows, outputs of magnitude <= 1
// (the same bound tests/kernels uses for the head-major kernel).
inline constexpr double kKernelTol = 3e-5;

inline CacheShape small_shape(std::int32_t q_heads, std::int32_t kv_heads, std::int32_t head_dim,
                              std::int64_t capacity, DType dtype,
                              Layout layout = Layout::kHeadMajor) {
  CacheShape s;
  s.layers = 2;
  s.q_heads = q_heads;
  s.kv_heads = kv_heads;
  s.head_dim = head_dim;
  s.capacity = capacity;
  s.dtype = dtype;
  s.layout = layout;
  return s;
}

// Token-major rows [tokens][kv_heads][head_dim] for K and V of one layer.
struct TokenRows {
  std::vector<float> k, v;
};
inline TokenRows random_tokens(std::int64_t tokens, const CacheShape& s, std::mt19937& rng) {
  const auto n = static_cast<std::size_t>(tokens * s.kv_heads * s.head_dim);
  return {random_floats(n, rng), random_floats(n, rng)};
}

// Appends tokens [0, rows) of `t` to `layer` of a contiguous cache, one token at a time.
inline void append_all(const CacheView& cache, std::int32_t layer, const TokenRows& t,
                       std::int64_t tokens) {
  const CacheShape& s = cache.geometry->shape();
  const std::int64_t e = std::int64_t{s.kv_heads} * s.head_dim;
  for (std::int64_t p = 0; p < tokens; ++p)
    ASSERT_EQ(append_token(cache, layer, p, t.k.data() + p * e, t.v.data() + p * e), Status::kOk);
}

inline std::vector<double> reference(const CacheView& cache, std::int32_t layer,
                                     std::int64_t context, const float* q) {
  const CacheShape& s = cache.geometry->shape();
  std::vector<double> out(static_cast<std::size_t>(s.q_heads) * s.head_dim);
  std::vector<double> ws(static_cast<std::size_t>(std::max<std::int64_t>(context, 1)));
  EXPECT_EQ(decode_attention_reference(cache, layer, context, q,
                                       1.0 / std::sqrt(double(s.head_dim)), out.data(), ws.data()),
            Status::kOk);
  return out;
}

// Largest |a[offset + i] - b[i]| over b.
template <typename A, typename B>
double max_abs_diff(const A& a, const B& b, std::size_t offset = 0) {
  double m = 0;
  for (std::size_t i = 0; i < b.size(); ++i)
    m = std::max(m, std::fabs(double(a[offset + i]) - double(b[i])));
  return m;
}

}  // namespace kvb::testing
