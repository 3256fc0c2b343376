// The VPDPBUSD V path of int8 attention (kernels/attention_vnni.h): the accumulation alone against
// double sums, and decode attention with it against the double reference and the FMA path. It
// needs AVX512-VNNI (the development and CI machines have it); elsewhere these cases skip and say
// so, and the switch case checks that the path stays off.
#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "kernels/attention.h"
#include "kernels/attention_vnni.h"
#include "kernels/cache_write.h"
#include "tests/kernels/attention_checks.h"
#include "tests/kernels/test_cache.h"

namespace kvb {
namespace {

using testing::OwnedCache;
using testing::max_abs_diff;
using testing::random_floats;

constexpr double kKernelTol = 3e-5;  // as attention_test.cc: fp32 kernel vs double reference

// Sets the V path for one scope and restores the process's setting after.
class VnniSwitch {
 public:
  explicit VnniSwitch(bool on) : before_(detail::vnni_values_enabled()) {
    detail::set_vnni_values_enabled(on);
  }
  ~VnniSwitch() { detail::set_vnni_values_enabled(before_); }

 private:
  bool before_;
};

#define KVB_REQUIRE_VNNI()                                                                 \
  if (!detail::vnni_values_supported())                                                    \
  GTEST_SKIP() << "no AVX512-VNNI here (CPUID AVX512F/BW/VNNI or the OS's ZMM state "       \
                  "missing): the VPDPBUSD path cannot run on this machine"

TEST(VnniSwitch, EnablingFollowsTheCpuAndNamesThePath) {
  const VnniSwitch restore(false);
  EXPECT_FALSE(detail::set_vnni_values_enabled(false));
  const std::string off = attention_int8_path();
  EXPECT_EQ(off.find("VNNI"), std::string::npos) << off;
  EXPECT_EQ(detail::set_vnni_values_enabled(true), detail::vnni_values_supported());
  EXPECT_EQ(attention_int8_path(), detail::vnni_values_supported() ? off + "+VNNI-V" : off);
}

// acc[h][j] += sum_r w[h][r] * v[r][j] over the first rows - rows % 4 rows, within fp32's
// rounding of the sums; every dim lands on its own accumulator (a wrong interleave or block
// transpose moves whole products, orders of magnitude past the bound).
TEST(VnniAccumulate, AddsWeightedRowsInElementOrder) {
  KVB_REQUIRE_VNNI();
  const VnniSwitch on(true);
  std::mt19937 rng(7);
  std::uniform_int_distribution<int> code(-128, 127);
  for (const std::int32_t heads : {1, 2, 3}) {
    for (const std::int32_t d : {64, 128, 256}) {
      for (const std::int64_t rows : {0, 1, 3, 4, 5, 31, 32, 33, 64, 70}) {
        const std::int64_t stride = d + 64;  // rows interleaved with other data, as in a cache
        std::vector<std::int8_t> v(static_cast<std::size_t>(std::max<std::int64_t>(rows, 1) * stride));
        for (auto& x : v) x = static_cast<std::int8_t>(code(rng));
        if (rows > 0) v[0] = -128, v[1] = 127;
        const float bound = 0.37f;
        const std::int64_t w_stride = 80;
        auto w = random_floats(static_cast<std::size_t>(heads * w_stride), rng, 0.0f, bound);
        w[0] = bound;  // a weight at the bound: all three limbs full
        w[1] = 0.0f;
        const auto acc0 = random_floats(static_cast<std::size_t>(heads) * d, rng, -2.0f, 2.0f);
        std::vector<float> acc = acc0;
        const std::int64_t done =
            detail::vnni_int8_accumulate(v.data(), stride, rows, d, w.data(), w_stride, heads, bound, acc.data());
        ASSERT_EQ(done, rows - rows % 4) << "heads " << heads << " d " << d << " rows " << rows;
        for (std::int32_t h = 0; h < heads; ++h)
          for (std::int32_t j = 0; j < d; ++j) {
            double want = acc0[h * d + j], mass = std::fabs(want);
            for (std::int64_t r = 0; r < done; ++r) {
              const double p = double(w[h * w_stride + r]) * v[r * stride + j];
              want += p;
              mass += std::fabs(p);
            }
            // fp32 rounding of the block sums and the accumulator, and each weight's 24-bit
            // fixed point (at most 1.5 units of bound / (2^24 - 1) per row, times |v| <= 128).
            const double tol = 4e-7 * mass + 1.5 * 128 * double(done) * bound / 16777215.0;
            ASSERT_NEAR(acc[h * d + j], want, tol)
                << "heads " << heads << " d " << d << " rows " << rows << " head " << h << " dim " << j;
          }
      }
    }
  }
}

// Nothing is touched where the path cannot serve: switched off, head_dim not a multiple of 64, a
// bound that is zero, subnormal or not a number.
TEST(VnniAccumulate, DeclinesWhatItCannotServe) {
  const std::int32_t d = 128;
  std::vector<std::int8_t> v(static_cast<std::size_t>(8 * d), 3);
  std::vector<float> w(8, 0.5f), acc(static_cast<std::size_t>(d), 1.0f);
  {
    const VnniSwitch off(false);
    EXPECT_EQ(detail::vnni_int8_accumulate(v.data(), d, 8, d, w.data(), 8, 1, 1.0f, acc.data()), 0);
  }
  KVB_REQUIRE_VNNI();
  const VnniSwitch on(true);
  EXPECT_EQ(detail::vnni_int8_accumulate(v.data(), 80, 8, 80, w.data(), 8, 1, 1.0f, acc.data()), 0);
  for (const float bound : {0.0f, std::numeric_limits<float>::denorm_min(), std::nanf(""), -1.0f})
    EXPECT_EQ(detail::vnni_int8_accumulate(v.data(), d, 8, d, w.data(), 8, 1, bound, acc.data()), 0)
        << bound;
  for (const float a : acc) ASSERT_EQ(a, 1.0f);
}

struct VnniCase {
  std::int32_t group;  // query heads per KV head
  std::int32_t head_dim;
  std::int64_t context;
  Layout layout;
};

std::string case_name(const ::testing::TestParamInfo<VnniCase>& info) {
  const VnniCase& c = info.param;
  return "G" + std::to_string(c.group) + "_d" + std::to_string(c.head_dim) + "_t" +
         std::to_string(c.context) + (c.layout == Layout::kHeadMajor ? "_head" : "_pos");
}

class VnniAttention : public ::testing::TestWithParam<VnniCase> {};

// decode_attention with the path on against the double reference and against the FMA path, on one
// int8 cache whose every 5th row scale is 0 (rows that quantised to nothing).
TEST_P(VnniAttention, MatchesReferenceAndFmaPath) {
  KVB_REQUIRE_VNNI();
  const VnniCase& c = GetParam();
  CacheShape s;
  s.layers = 1;
  s.kv_heads = 2;
  s.q_heads = 2 * c.group;
  s.head_dim = c.head_dim;
  s.capacity = c.context + 5;  // rows past the context must be ignored
  s.dtype = DType::kI8;
  s.layout = c.layout;
  OwnedCache cache(s);
  std::mt19937 rng(static_cast<std::uint32_t>(c.group * 1000 + c.head_dim + c.context));
  const std::size_t n = static_cast<std::size_t>(s.kv_heads) * s.capacity * s.head_dim;
  const auto k = random_floats(n, rng);
  const auto v = random_floats(n, rng);
  ASSERT_EQ(prefill_copy(cache.view(), 0, 0, s.capacity, k.data(), v.data()), Status::kOk);
  const CacheGeometry& g = cache.geometry();
  for (std::int32_t h = 0; h < s.kv_heads; ++h)
    for (std::int64_t t = 0; t < s.capacity; t += 5)
      cache.scales()[static_cast<std::size_t>(g.scale_index(0, KV::kValue, h, t))] = 0.0f;
  const auto q = random_floats(static_cast<std::size_t>(s.q_heads) * s.head_dim, rng, -3.0f, 3.0f);
  const auto run = [&](bool vnni) {
    const VnniSwitch sw(vnni);
    std::vector<float> out(q.size(), -7.0f);
    std::vector<float> ws(static_cast<std::size_t>(attention_partial_floats(s)));
    EXPECT_EQ(decode_attention(cache.view(), 0, c.context, q.data(), 1.0f / std::sqrt(float(s.head_dim)),
                               out.data(), ws.data()),
              Status::kOk);
    return out;
  };
  const auto with = run(true), without = run(false);
  const auto ref = testing::reference(cache, 0, c.context, q);
  EXPECT_LE(max_abs_diff(with, ref), kKernelTol) << "VPDPBUSD path";
  EXPECT_LE(max_abs_diff(without, ref), kKernelTol) << "FMA path";
  EXPECT_LE(max_abs_diff(with, without), 2 * kKernelTol) << "VPDPBUSD vs FMA";
}

// Contexts straddle the 4-row groups, the 32-row blocks and tiles and the one long tile of short
// ranges (<= 256 rows); head_dim 80 falls back to FMA and must still be right with the switch on.
INSTANTIATE_TEST_SUITE_P(
    Shapes, VnniAttention,
    ::testing::Values(VnniCase{1, 64, 1, Layout::kHeadMajor}, VnniCase{2, 128, 3, Layout::kHeadMajor},
                      VnniCase{2, 128, 4, Layout::kPositionMajor}, VnniCase{2, 128, 33, Layout::kHeadMajor},
                      VnniCase{1, 128, 250, Layout::kHeadMajor}, VnniCase{3, 256, 257, Layout::kPositionMajor},
                      VnniCase{8, 128, 1000, Layout::kHeadMajor}, VnniCase{2, 128, 4099, Layout::kHeadMajor},
                      VnniCase{16, 64, 77, Layout::kPositionMajor}, VnniCase{2, 80, 100, Layout::kHeadMajor}),
    case_name);

}  // namespace
}  // namespace kvb
