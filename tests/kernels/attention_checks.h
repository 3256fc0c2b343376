// Checks shared by the attention tests: the double-precision reference over a test cache and the
// largest elementwise difference between two outputs.
#pragma once
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <vector>

#include "gtest/gtest.h"
#include "kernels/attention.h"
#include "tests/kernels/test_cache.h"

namespace kvb::testing {

// decode_attention_reference over positions [0, context) of `layer`, scale 1/sqrt(head_dim).
inline std::vector<double> reference(OwnedCache& cache, std::int32_t layer, std::int64_t context,
                                     const std::vector<float>& q) {
  const CacheShape& s = cache.geometry().shape();
  std::vector<double> out(static_cast<std::size_t>(s.q_heads) * s.head_dim);
  std::vector<double> ws(static_cast<std::size_t>(std::max<std::int64_t>(context, 1)));
  EXPECT_EQ(decode_attention_reference(cache.view(), layer, context, q.data(),
                                       1.0 / std::sqrt(double(s.head_dim)), out.data(), ws.data()),
            Status::kOk);
  return out;
}

template <typename A, typename B>
double max_abs_diff(const A& a, const B& b) {
  double m = 0;
  for (std::size_t i = 0; i < a.size(); ++i) m = std::max(m, std::fabs(double(a[i]) - double(b[i])));
  return m;
}

}  // namespace kvb::testing
