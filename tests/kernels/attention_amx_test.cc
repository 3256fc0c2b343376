// The AMX-INT8 score path of int8 attention against the double reference and against the FMA
// path, twice: on the hardware (needs AMX-TILE + AMX-INT8 and the OS's permission; elsewhere
// those cases skip and say so) and on AmxTileEmulator (every CPU: the same tile configuration,
// operands, partial tiles and integration into the kernel, without the AMX instructions).
#include <algorithm>
#include <cmath>
#include <cstring>
#include <random>
#include <string>
#include <tuple>
#include <vector>

#include "gtest/gtest.h"
#include "kernels/attention.h"
#include "kernels/attention_amx.h"
#include "kernels/cache_write.h"
#include "tests/kernels/attention_checks.h"
#include "tests/kernels/test_cache.h"

namespace kvb {
namespace {

using testing::OwnedCache;
using testing::max_abs_diff;
using testing::random_floats;

constexpr double kKernelTol = 3e-5;  // as attention_test.cc: fp32 kernel vs double reference

enum class Tiles { kHardware, kEmulated };

std::string tiles_name(Tiles t) { return t == Tiles::kHardware ? "Hardware" : "Emulated"; }

// Sets the int8 score path for one scope and restores the process's setting after.
class AmxSwitch {
 public:
  // on: AMX on `tiles`; off: the FMA path.
  AmxSwitch(bool on, Tiles tiles) : before_(detail::amx_int8_enabled()) {
    if (on && tiles == Tiles::kEmulated)
      detail::set_amx_int8_emulated(true);
    else
      detail::set_amx_int8_enabled(on);
  }
  explicit AmxSwitch(bool on) : AmxSwitch(on, Tiles::kHardware) {}
  ~AmxSwitch() { detail::set_amx_int8_enabled(before_); }

 private:
  bool before_;
};

struct AmxCase {
  std::int32_t group;  // query heads per KV head
  std::int32_t head_dim;
  std::int64_t context;
};

using AmxParam = std::tuple<Tiles, AmxCase>;

std::string case_name(const ::testing::TestParamInfo<AmxParam>& info) {
  const AmxCase& c = std::get<1>(info.param);
  return tiles_name(std::get<0>(info.param)) + "_G" + std::to_string(c.group) + "_d" +
         std::to_string(c.head_dim) + "_t" + std::to_string(c.context);
}

struct Int8Setup {
  OwnedCache cache;
  std::vector<float> q;
  explicit Int8Setup(const AmxCase& c, float q_magnitude, std::uint32_t seed)
      : cache(shape(c)) {
    std::mt19937 rng(seed);
    const CacheShape& s = cache.geometry().shape();
    const std::size_t n = static_cast<std::size_t>(s.kv_heads) * s.capacity * s.head_dim;
    const auto k = random_floats(n, rng);
    const auto v = random_floats(n, rng);
    EXPECT_EQ(prefill_copy(cache.view(), 0, 0, s.capacity, k.data(), v.data()), Status::kOk);
    q = random_floats(static_cast<std::size_t>(s.q_heads) * s.head_dim, rng, -q_magnitude,
                      q_magnitude);
  }
  static CacheShape shape(const AmxCase& c) {
    CacheShape s;
    s.layers = 1;
    s.kv_heads = 2;
    s.q_heads = 2 * c.group;
    s.head_dim = c.head_dim;
    s.capacity = c.context + 5;  // rows past the context must be ignored
    s.dtype = DType::kI8;
    s.layout = Layout::kPositionMajor;
    return s;
  }
  // Row scales of K and V set to 0 at every 5th position (a row that quantised to nothing).
  void zero_some_row_scales() {
    const CacheGeometry& g = cache.geometry();
    for (std::int32_t h = 0; h < g.shape().kv_heads; ++h)
      for (std::int64_t t = 0; t < g.shape().capacity; t += 5)
        for (const KV kv : {KV::kKey, KV::kValue})
          cache.scales()[static_cast<std::size_t>(g.scale_index(0, kv, h, t))] = 0.0f;
  }
  std::vector<float> fast(std::int64_t context) {
    const CacheShape& s = cache.geometry().shape();
    std::vector<float> out(q.size(), -7.0f);
    std::vector<float> ws(static_cast<std::size_t>(attention_partial_floats(s)));
    EXPECT_EQ(decode_attention(cache.view(), 0, context, q.data(),
                               1.0f / std::sqrt(float(s.head_dim)), out.data(), ws.data()),
              Status::kOk);
    return out;
  }
  std::vector<double> reference(std::int64_t context) {
    return testing::reference(cache, 0, context, q);
  }
  double error_vs_reference(std::int64_t context) {
    return max_abs_diff(fast(context), reference(context));
  }
};

#define KVB_REQUIRE_TILES(tiles)                                                            \
  if ((tiles) == Tiles::kHardware && !detail::amx_int8_supported())                         \
  GTEST_SKIP() << "no AMX-INT8 here (CPUID AMX-TILE/AMX-INT8/AVX512F, XCR0 tile state or "   \
                  "Linux ARCH_REQ_XCOMP_PERM missing): the hardware path cannot run on this "  \
                  "machine; the Emulated cases cover its data flow"

TEST(AmxSwitch, EnablingFollowsTheHardwareAndNamesThePath) {
  const AmxSwitch restore(false);
  EXPECT_FALSE(detail::set_amx_int8_enabled(false));
  EXPECT_STREQ(attention_int8_path(), "FMA");
  EXPECT_EQ(detail::set_amx_int8_enabled(true), detail::amx_int8_supported());
  EXPECT_STREQ(attention_int8_path(), detail::amx_int8_supported() ? "AMX-INT8" : "FMA");
}

class AmxAttention : public ::testing::TestWithParam<AmxParam> {};

// AMX against the double reference, and AMX against the FMA path, on the same cache.
TEST_P(AmxAttention, MatchesReferenceAndFmaPath) {
  const Tiles tiles = std::get<0>(GetParam());
  KVB_REQUIRE_TILES(tiles);
  const AmxCase& c = std::get<1>(GetParam());
  Int8Setup setup(c, 3.0f, static_cast<std::uint32_t>(c.group * 1000 + c.head_dim + c.context));
  const auto ref = setup.reference(c.context);
  std::vector<float> amx, fma;
  {
    const AmxSwitch on(true, tiles);
    if (tiles == Tiles::kHardware) {
      ASSERT_STREQ(attention_int8_path(), "AMX-INT8");
    }
    amx = setup.fast(c.context);
  }
  {
    const AmxSwitch off(false);
    fma = setup.fast(c.context);
  }
  EXPECT_LE(max_abs_diff(amx, ref), kKernelTol) << "AMX path";
  EXPECT_LE(max_abs_diff(fma, ref), kKernelTol) << "FMA path";
  EXPECT_LE(max_abs_diff(amx, fma), 2 * kKernelTol) << "AMX vs FMA";
}

// G = 1..16 run on AMX; head_dim 80 (not a multiple of 64) and G = 32 fall back to FMA and must
// still be right with the switch on. Contexts straddle the 16-position tiles.
INSTANTIATE_TEST_SUITE_P(
    Shapes, AmxAttention,
    ::testing::Combine(
        ::testing::Values(Tiles::kHardware, Tiles::kEmulated),
        ::testing::Values(AmxCase{1, 64, 1}, AmxCase{1, 128, 4099}, AmxCase{2, 128, 17},
                          AmxCase{2, 64, 1000}, AmxCase{4, 128, 15}, AmxCase{4, 256, 333},
                          AmxCase{8, 128, 16}, AmxCase{8, 64, 250}, AmxCase{8, 192, 31},
                          AmxCase{16, 128, 77}, AmxCase{16, 256, 48}, AmxCase{2, 80, 100},
                          AmxCase{32, 64, 40})),
    case_name);

class AmxAttentionEdges : public ::testing::TestWithParam<Tiles> {};

// The scorer alone: begin takes the AMX path for the shapes it fits, and a tile's scores are
// scale * kscale[r] * (q_g . k_r), full and partial tiles (rows past `rows` are not read: the
// buffer ends right after them).
TEST_P(AmxAttentionEdges, ScorerGivesScaledDotProducts) {
  KVB_REQUIRE_TILES(GetParam());
  const AmxSwitch on(true, GetParam());
  std::mt19937 rng(23);
  std::uniform_int_distribution<int> code(-128, 127);
  for (const std::int32_t heads : {1, 3, 16}) {
    for (const std::int32_t d : {64, 256}) {
      for (const std::int64_t rows : {16, 5, 1}) {
        const std::int64_t stride = d + 64;  // rows interleaved with other data, as in a cache
        std::vector<std::int8_t> k(static_cast<std::size_t>((rows - 1) * stride + d));
        for (auto& x : k) x = static_cast<std::int8_t>(code(rng));
        std::vector<float> kscale(static_cast<std::size_t>(rows));
        for (auto& x : kscale) x = random_floats(1, rng, 0.001f, 0.02f)[0];
        kscale[0] = 0.0f;
        const auto q = random_floats(static_cast<std::size_t>(heads) * d, rng, -3.0f, 3.0f);
        const float scale = 0.125f;
        detail::AmxInt8Scorer scorer;
        ASSERT_TRUE(detail::amx_int8_begin(scorer, q.data(), heads, d, scale));
        std::vector<float> out(static_cast<std::size_t>(heads) * 16, -1.0f);
        detail::amx_int8_score_tile(scorer, k.data(), stride, rows, kscale.data(), out.data());
        detail::amx_int8_end(scorer);
        for (std::int32_t g = 0; g < heads; ++g) {
          for (std::int64_t r = 0; r < rows; ++r) {
            double dot = 0, bound = 0;
            for (std::int32_t i = 0; i < d; ++i) {
              dot += double(q[g * d + i]) * k[r * stride + i];
              bound += std::fabs(double(q[g * d + i]) * k[r * stride + i]) + 3.0 * 128;
            }
            const double expect = scale * double(kscale[r]) * dot;
            EXPECT_NEAR(out[g * 16 + r], expect, 1e-6 * scale * kscale[r] * bound)
                << "heads " << heads << " d " << d << " rows " << rows << " g " << g << " r " << r;
          }
        }
      }
    }
  }
  detail::AmxInt8Scorer scorer;
  const std::vector<float> q(17 * 80, 1.0f);
  EXPECT_FALSE(detail::amx_int8_begin(scorer, q.data(), 17, 64, 1.0f));  // more than 16 heads
  EXPECT_FALSE(detail::amx_int8_begin(scorer, q.data(), 2, 80, 1.0f));   // head_dim 80
}

TEST_P(AmxAttentionEdges, AllZeroQueryGivesTheMeanOfV) {
  KVB_REQUIRE_TILES(GetParam());
  const AmxCase c{4, 128, 100};
  Int8Setup setup(c, 1.0f, 5);
  std::fill(setup.q.begin(), setup.q.end(), 0.0f);
  const AmxSwitch on(true, GetParam());
  EXPECT_LE(setup.error_vs_reference(c.context), kKernelTol);
}

TEST_P(AmxAttentionEdges, LargeAndTinyQueriesMatchTheReference) {
  KVB_REQUIRE_TILES(GetParam());
  const AmxCase c{8, 128, 200};
  for (const float mag : {1e-30f, 1e-6f, 30.0f}) {  // larger |q| saturates softmax past fp32
    Int8Setup setup(c, mag, 9);
    const auto ref = setup.reference(c.context);
    const AmxSwitch on(true, GetParam());
    EXPECT_LE(max_abs_diff(setup.fast(c.context), ref), kKernelTol) << "|q| <= " << mag;
  }
}

// One head of the group all zero, the others not: per-head units must stay apart.
TEST_P(AmxAttentionEdges, OneZeroHeadInTheGroup) {
  KVB_REQUIRE_TILES(GetParam());
  const AmxCase c{4, 64, 70};
  Int8Setup setup(c, 2.0f, 13);
  std::fill(setup.q.begin() + 64, setup.q.begin() + 128, 0.0f);
  const AmxSwitch on(true, GetParam());
  EXPECT_LE(setup.error_vs_reference(c.context), kKernelTol);
}

TEST_P(AmxAttentionEdges, RowsWithScaleZero) {
  KVB_REQUIRE_TILES(GetParam());
  const AmxCase c{2, 128, 90};
  Int8Setup setup(c, 3.0f, 17);
  setup.zero_some_row_scales();
  const AmxSwitch on(true, GetParam());
  EXPECT_LE(setup.error_vs_reference(c.context), kKernelTol);
}

// A partial over rows [t0, t1) that do not start on a tile boundary, merged: the same as one pass.
TEST_P(AmxAttentionEdges, SplitRangesMergeToTheReference) {
  KVB_REQUIRE_TILES(GetParam());
  const AmxCase c{8, 128, 301};
  Int8Setup setup(c, 3.0f, 19);
  const CacheShape& s = setup.cache.geometry().shape();
  const AmxSwitch on(true, GetParam());
  const std::int64_t cuts[] = {0, 7, 150, 301};
  std::vector<std::vector<float>> storage(3);
  std::vector<AttentionPartial> parts;
  for (int i = 0; i < 3; ++i) {
    storage[i].resize(static_cast<std::size_t>(attention_partial_floats(s)));
    parts.push_back(attention_partial_from(storage[i].data(), s));
  }
  const auto ref = setup.reference(c.context);
  const float scale = 1.0f / std::sqrt(float(s.head_dim));
  for (std::int32_t h = 0; h < s.kv_heads; ++h) {
    const float* qh = setup.q.data() + std::int64_t{h} * c.group * s.head_dim;
    for (int i = 0; i < 3; ++i)
      ASSERT_EQ(attention_partial(setup.cache.view(), 0, h, cuts[i], cuts[i + 1], qh, scale,
                                  parts[static_cast<std::size_t>(i)]),
                Status::kOk);
    std::vector<float> out(static_cast<std::size_t>(c.group) * s.head_dim);
    ASSERT_EQ(merge_partials(s, parts.data(), 3, out.data()), Status::kOk);
    for (std::size_t j = 0; j < out.size(); ++j)
      EXPECT_NEAR(out[j], ref[static_cast<std::size_t>(h) * out.size() + j], kKernelTol);
  }
}

INSTANTIATE_TEST_SUITE_P(Tiles, AmxAttentionEdges,
                         ::testing::Values(Tiles::kHardware, Tiles::kEmulated),
                         [](const ::testing::TestParamInfo<Tiles>& info) {
                           return tiles_name(info.param);
                         });

}  // namespace
}  // namespace kvb
