#include "kernels/simd_target.h"

#include <cctype>
#include <cmath>
#include <random>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "kernels/attention.h"
#include "kernels/cache_write.h"
#include "tests/kernels/attention_checks.h"
#include "tests/kernels/test_cache.h"

namespace kvb {
namespace {

using testing::OwnedCache;
using testing::max_abs_diff;
using testing::random_floats;
using testing::reference;

std::string lower(std::string s) {
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

// Undoes a test's limit however it ends.
struct Unlimit {
  ~Unlimit() { unlimit_simd_target(); }
};

TEST(SimdTarget, TheListStartsWithTheTargetTheKernelsDispatchTo) {
  const std::vector<std::string> targets = runnable_simd_targets();
  ASSERT_FALSE(targets.empty());
  EXPECT_EQ(targets.front(), lower(simd_target_name()));
  for (const std::string& t : targets) EXPECT_EQ(t, lower(t));
  std::string joined;
  for (const std::string& t : targets) joined += (joined.empty() ? "" : ", ") + t;
  EXPECT_EQ(runnable_simd_target_list(), joined);
}

// Each runnable target, capped at, is the one the kernels run: the name says so, the AVX-512 paths
// outside Highway's dispatch are off below AVX-512, bf16 rows written and read under it match the
// double reference, and the list itself does not narrow. Undone, the best target is back.
TEST(SimdTarget, EachTargetCappedAtIsTheOneTheKernelsRun) {
  Unlimit unlimit;
  const std::vector<std::string> targets = runnable_simd_targets();
  for (const std::string& t : targets) {
    SCOPED_TRACE(t);
    ASSERT_TRUE(limit_simd_target(t));
    EXPECT_EQ(lower(simd_target_name()), t);
    EXPECT_EQ(runnable_simd_targets(), targets);
    if (t.rfind("avx3", 0) != 0) {
      EXPECT_STREQ(bf16_encode_path(), "SIMD");
      EXPECT_STREQ(attention_int8_path(), "FMA");
    }
    for (DType dtype : {DType::kF32, DType::kBF16}) {
      CacheShape s;
      s.layers = 1;
      s.q_heads = 16;
      s.kv_heads = 8;
      s.head_dim = 128;
      s.capacity = 300;
      s.dtype = dtype;
      OwnedCache cache(s);
      ASSERT_EQ(cache.status(), Status::kOk);
      std::mt19937 rng(7);
      const auto k = random_floats(static_cast<std::size_t>(8) * 300 * 128, rng);
      const auto v = random_floats(static_cast<std::size_t>(8) * 300 * 128, rng);
      ASSERT_EQ(prefill_copy(cache.view(), 0, 0, 300, k.data(), v.data()), Status::kOk);
      const auto q = random_floats(static_cast<std::size_t>(16) * 128, rng, -3.0f, 3.0f);
      const auto ref = reference(cache, 0, 300, q);
      std::vector<float> ws(static_cast<std::size_t>(attention_partial_floats(s)));
      std::vector<float> out(ref.size(), -7.0f);
      ASSERT_EQ(decode_attention(cache.view(), 0, 300, q.data(), 1.0f / std::sqrt(128.0f), out.data(),
                                 ws.data()),
                Status::kOk);
      EXPECT_LE(max_abs_diff(out, ref), 3e-5) << dtype_name(dtype);
    }
  }
  unlimit_simd_target();
  EXPECT_EQ(lower(simd_target_name()), targets.front());
}

TEST(SimdTarget, NamesAreTakenInAnyCaseAndUnknownOnesChangeNothing) {
  Unlimit unlimit;
  const std::string best = lower(simd_target_name());
  for (const char* bad : {"", "best", "avx9", "avx2 ", "neon2"}) {
    EXPECT_FALSE(is_runnable_simd_target(bad)) << bad;
    EXPECT_FALSE(limit_simd_target(bad)) << bad;
    EXPECT_EQ(lower(simd_target_name()), best) << bad;
  }
  const std::string last = runnable_simd_targets().back();
  std::string upper = last;
  for (char& c : upper) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  EXPECT_TRUE(is_runnable_simd_target(upper));
  ASSERT_TRUE(limit_simd_target(upper));
  EXPECT_EQ(lower(simd_target_name()), last);
}

}  // namespace
}  // namespace kvb
