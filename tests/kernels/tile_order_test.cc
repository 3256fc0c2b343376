#include "kernels/tile_order.h"

#include <cmath>
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

using OrderGuard = testing::SettingGuard<TileOrder, tile_order, set_tile_order>;

TEST(TileOrder, NamesParseBackAndUnknownNamesAreRefused) {
  for (TileOrder o : {TileOrder::kLinear, TileOrder::kHalves}) {
    TileOrder parsed = o == TileOrder::kLinear ? TileOrder::kHalves : TileOrder::kLinear;
    ASSERT_TRUE(parse_tile_order(tile_order_name(o), &parsed)) << tile_order_name(o);
    EXPECT_EQ(parsed, o);
  }
  TileOrder untouched = TileOrder::kHalves;
  for (const char* bad : {"", "Linear", "half", "auto", "quarters"}) {
    EXPECT_FALSE(parse_tile_order(bad, &untouched)) << bad;
    EXPECT_EQ(untouched, TileOrder::kHalves);
  }
}

TEST(TileOrder, LinearIsTheDefaultAndSetIsWhatTheKernelsRead) {
  EXPECT_EQ(tile_order(), TileOrder::kLinear);
  OrderGuard guard;
  set_tile_order(TileOrder::kHalves);
  EXPECT_EQ(tile_order(), TileOrder::kHalves);
}

struct Case {
  DType dtype;
  std::int32_t q_heads, kv_heads;
  std::int64_t t0, t1;  // the range attended (t1 = the cache's capacity)
  bool pad;
  bool climb;  // scores climbing along the range: the second half's raise the shift
};

std::string describe(const Case& c) {
  return std::string(dtype_name(c.dtype)) + " G=" + std::to_string(c.q_heads / c.kv_heads) + " [" +
         std::to_string(c.t0) + ", " + std::to_string(c.t1) + ")" + (c.pad ? " padded" : "") +
         (c.climb ? " climbing" : "");
}

// Halves reads the same rows in another order: against the double reference it is as close as
// linear is, and it differs from linear by rounding only. The cases take every tile length
// (16-row tiles of fp16/bf16 and fp32 groups of 8, 32-row tiles of the 1-byte and 4-bit dtypes,
// fp32's 256-row tiles at G <= 2), a range whose rows fill no pair of tiles (linear throughout),
// ranges with a last partial tile past the pairs, padded rows (a prefetch per row), row scales,
// a range not starting at 0 (held to linear's partial), and scores that climb along the range, so each of the second half's
// segments, read early, raises the shift that the first half's then fall below.
TEST(TileOrder, HalvesMatchesTheReferenceAndLinearUpToRounding) {
  OrderGuard guard;
  const Case cases[] = {
      {DType::kF16, 16, 8, 0, 700, false, false},  {DType::kBF16, 16, 8, 0, 301, true, false},
      {DType::kI8, 16, 8, 0, 700, false, false},   {DType::kI8, 16, 8, 40, 300, true, false},
      {DType::kF32, 16, 8, 0, 600, false, false},  {DType::kF32, 16, 8, 0, 1100, false, false},
      {DType::kF32, 8, 8, 0, 1100, true, false},   {DType::kF8E4M3, 16, 8, 0, 450, false, false},
      {DType::kF8E5M2, 8, 8, 0, 129, false, false}, {DType::kI4, 16, 8, 0, 520, false, false},
      {DType::kF16, 16, 8, 0, 31, false, false},   {DType::kF16, 64, 8, 0, 333, false, false},
      {DType::kF32, 16, 8, 0, 700, false, true},   {DType::kF16, 8, 8, 0, 700, false, true},
      {DType::kF32, 16, 8, 0, 1300, false, true},  {DType::kI8, 16, 8, 0, 700, false, true},
  };
  const std::int32_t d = 128;
  const float scale = 1.0f / std::sqrt(float(d));
  for (const Case& c : cases) {
    SCOPED_TRACE(describe(c));
    CacheShape s;
    s.layers = 1;
    s.q_heads = c.q_heads;
    s.kv_heads = c.kv_heads;
    s.head_dim = d;
    s.capacity = c.t1;
    s.dtype = c.dtype;
    s.pad_rows = c.pad;
    OwnedCache cache(s);
    ASSERT_EQ(cache.status(), Status::kOk);
    std::mt19937 rng(static_cast<unsigned>(c.t1 + c.q_heads));
    auto k = random_floats(static_cast<std::size_t>(c.kv_heads) * c.t1 * d, rng);
    const auto v = random_floats(static_cast<std::size_t>(c.kv_heads) * c.t1 * d, rng);
    if (c.climb)  // K rows constant along d: a query of ones scores row t at 0.05 t + noise
      for (std::int32_t h = 0; h < c.kv_heads; ++h)
        for (std::int64_t t = 0; t < c.t1; ++t) {
          float* row = k.data() + (std::int64_t{h} * c.t1 + t) * d;
          const float score = 0.05f * float(t) + 0.5f * row[0];
          std::fill(row, row + d, score / std::sqrt(float(d)));
        }
    ASSERT_EQ(prefill_copy(cache.view(), 0, 0, c.t1, k.data(), v.data()), Status::kOk);
    auto q = random_floats(static_cast<std::size_t>(c.q_heads) * d, rng, -3.0f, 3.0f);
    if (c.climb) std::fill(q.begin(), q.end(), 1.0f);
    // The double reference where the range starts at 0; from t0 > 0, linear's partials (which
    // SplitMerge holds to the reference) are the check.
    const std::vector<double> ref = c.t0 == 0 ? reference(cache, 0, c.t1, q) : std::vector<double>{};
    std::vector<float> outs[2];
    for (TileOrder o : {TileOrder::kLinear, TileOrder::kHalves}) {
      set_tile_order(o);
      std::vector<float> ws(static_cast<std::size_t>(attention_partial_floats(s)));
      const AttentionPartial part = attention_partial_from(ws.data(), s);
      std::vector<float>& out = outs[o == TileOrder::kHalves];
      out.assign(static_cast<std::size_t>(c.q_heads) * d, -7.0f);
      const std::int32_t G = c.q_heads / c.kv_heads;
      for (std::int32_t h = 0; h < c.kv_heads; ++h) {
        ASSERT_EQ(attention_partial(cache.view(), 0, h, c.t0, c.t1, q.data() + std::int64_t{h} * G * d, scale, part),
                  Status::kOk);
        ASSERT_EQ(merge_partials(s, &part, 1, out.data() + std::int64_t{h} * G * d), Status::kOk);
      }
      if (!ref.empty()) EXPECT_LE(max_abs_diff(out, ref), 3e-5) << tile_order_name(o);
    }
    EXPECT_LE(max_abs_diff(outs[0], outs[1]), 3e-5);
  }
}

}  // namespace
}  // namespace kvb
