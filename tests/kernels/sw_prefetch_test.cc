#include "kernels/sw_prefetch.h"

#include <cmath>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "kernels/attention.h"
#include "kernels/cache_write.h"
#include "tests/kernels/attention_checks.h"
#include "tests/kernels/setting_guard.h"
#include "tests/kernels/test_cache.h"

namespace kvb {
namespace {

using testing::OwnedCache;
using testing::max_abs_diff;
using testing::random_floats;
using testing::reference;

using HintGuard = testing::SettingGuard<SwPrefetch, sw_prefetch, set_sw_prefetch>;

TEST(SwPrefetch, NamesParseBackAndUnknownNamesAreRefused) {
  for (SwPrefetch p : {SwPrefetch::kT0, SwPrefetch::kT2, SwPrefetch::kNone}) {
    SwPrefetch parsed = p == SwPrefetch::kT0 ? SwPrefetch::kNone : SwPrefetch::kT0;
    ASSERT_TRUE(parse_sw_prefetch(sw_prefetch_name(p), &parsed)) << sw_prefetch_name(p);
    EXPECT_EQ(parsed, p);
  }
  SwPrefetch untouched = SwPrefetch::kT2;
  for (const char* bad : {"", "t1", "T0", "nta", "auto"}) {
    EXPECT_FALSE(parse_sw_prefetch(bad, &untouched)) << bad;
    EXPECT_EQ(untouched, SwPrefetch::kT2);
  }
}

TEST(SwPrefetch, SetIsWhatTheKernelsRead) {
  HintGuard guard;
  for (SwPrefetch p : {SwPrefetch::kT2, SwPrefetch::kNone, SwPrefetch::kT0}) {
    set_sw_prefetch(p);
    EXPECT_EQ(sw_prefetch(), p);
  }
}

// The tuned table: T2 only where it measured faster (AMD family 25), T0 for everything else,
// unknown CPUs included.
TEST(SwPrefetch, TunedHintIsT2OnlyOnAmdFamily25) {
  EXPECT_EQ(tuned_sw_prefetch("AuthenticAMD", 25), SwPrefetch::kT2);
  EXPECT_EQ(tuned_sw_prefetch("AuthenticAMD", 26), SwPrefetch::kT0);
  EXPECT_EQ(tuned_sw_prefetch("AuthenticAMD", 23), SwPrefetch::kT0);
  EXPECT_EQ(tuned_sw_prefetch("GenuineIntel", 6), SwPrefetch::kT0);
  EXPECT_EQ(tuned_sw_prefetch("", -1), SwPrefetch::kT0);
}

// A prefetch moves data, never results: every hint gives the T0 outputs bit for bit, and they
// match the double reference. The cases take each prefetch path of the kernel: split windows
// (fp16, bf16 rows of 256 bytes), the joint window (int8 rows of 128 bytes), fp32's long tiles
// at G = 2, head passes sharing the next tile (fp32 G = 8), padded rows (a prefetch per row),
// and a range shorter than the window.
TEST(SwPrefetch, EveryHintGivesTheDefaultsOutputsBitForBit) {
  HintGuard guard;
  struct Case {
    DType dtype;
    std::int32_t q_heads, kv_heads;
    std::int64_t context;
    bool pad;
  };
  const Case cases[] = {
      {DType::kF16, 16, 8, 700, false}, {DType::kBF16, 16, 8, 300, true},
      {DType::kI8, 16, 8, 700, false},  {DType::kI8, 16, 8, 300, true},
      {DType::kF32, 16, 8, 600, false}, {DType::kF32, 16, 2, 300, false},
      {DType::kF32, 16, 2, 300, true},  {DType::kF16, 16, 8, 3, false},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(std::string(dtype_name(c.dtype)) + " G=" + std::to_string(c.q_heads / c.kv_heads) +
                 " ctx=" + std::to_string(c.context) + (c.pad ? " padded" : ""));
    CacheShape s;
    s.layers = 1;
    s.q_heads = c.q_heads;
    s.kv_heads = c.kv_heads;
    s.head_dim = 128;
    s.capacity = c.context;
    s.dtype = c.dtype;
    s.pad_rows = c.pad;
    OwnedCache cache(s);
    ASSERT_EQ(cache.status(), Status::kOk);
    std::mt19937 rng(static_cast<unsigned>(c.context + c.q_heads));
    const auto k = random_floats(static_cast<std::size_t>(c.kv_heads) * c.context * 128, rng);
    const auto v = random_floats(static_cast<std::size_t>(c.kv_heads) * c.context * 128, rng);
    ASSERT_EQ(prefill_copy(cache.view(), 0, 0, c.context, k.data(), v.data()), Status::kOk);
    const auto q = random_floats(static_cast<std::size_t>(c.q_heads) * 128, rng, -3.0f, 3.0f);
    const auto ref = reference(cache, 0, c.context, q);
    std::vector<float> ws(static_cast<std::size_t>(attention_partial_floats(s)));
    std::vector<float> base;
    for (SwPrefetch p : {SwPrefetch::kT0, SwPrefetch::kT2, SwPrefetch::kNone}) {
      set_sw_prefetch(p);
      std::vector<float> out(ref.size(), -7.0f);
      ASSERT_EQ(decode_attention(cache.view(), 0, c.context, q.data(), 1.0f / std::sqrt(128.0f),
                                 out.data(), ws.data()),
                Status::kOk);
      EXPECT_LE(max_abs_diff(out, ref), 3e-5) << sw_prefetch_name(p);
      if (base.empty()) {
        base = out;
      } else {
        EXPECT_EQ(std::memcmp(out.data(), base.data(), out.size() * sizeof(float)), 0)
            << sw_prefetch_name(p) << " changed the outputs";
      }
    }
  }
}

}  // namespace
}  // namespace kvb
