#include "kernels/attention.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "gtest/gtest.h"
#include "hwy/targets.h"
#include "kernels/cache_write.h"
#include "kernels/row_access.h"
#include "tests/kernels/attention_checks.h"
#include "tests/kernels/test_cache.h"

namespace kvb {
namespace {

using testing::OwnedCache;
using testing::max_abs_diff;
using testing::random_floats;
using testing::reference;

// Kernel error: fp32 arithmetic (single pass, vector exp) against the double reference on the
// SAME decoded cache, for outputs of magnitude <= 1. Dropping or repeating one row out of 4099
// moves an output by ~1e-4, so this bound still catches indexing bugs at the longest context.
constexpr double kKernelTol = 3e-5;

// Storage rounding: reference on the quantised cache vs reference on the fp32 originals.
double storage_tol(DType t) {
  switch (t) {
    case DType::kF32: return 0.0;
    case DType::kF16: return 5e-4;   // measured <= 2.8e-4 (largest at context 1: one V row)
    case DType::kBF16: return 4e-3;  // measured <= 2.2e-3
    case DType::kI8: return 1e-2;    // measured <= 5.5e-3
    // Low precision: V alone moves an output by at most the per-element bound (max|v| / 28 for
    // e4m3, / 14 for e5m2 and int4; codecs_test); K rounding adds a shift of the softmax weights.
    case DType::kF8E4M3: return 0.05;  // measured <= 0.036 (context 1: one V row)
    case DType::kF8E5M2: return 0.1;   // measured <= 0.080
    case DType::kI4: return 0.1;       // measured <= 0.078
  }
  return 0.0;
}

struct AttnCase {
  std::int32_t head_dim;
  std::int64_t context;
  std::int32_t q_heads;
  std::int32_t kv_heads;
  DType dtype;
  Layout layout;
  bool pad;
};

CacheShape shape_of(const AttnCase& c, DType dtype, std::int64_t capacity) {
  CacheShape s;
  s.layers = 2;
  s.q_heads = c.q_heads;
  s.kv_heads = c.kv_heads;
  s.head_dim = c.head_dim;
  s.capacity = capacity;
  s.dtype = dtype;
  s.layout = c.layout;
  s.pad_rows = c.pad;
  return s;
}

// Fills positions [0, tokens) of every layer from the fp32 originals ([layer][K|V] scratch).
void fill(OwnedCache& cache, const std::vector<std::vector<float>>& kv, std::int64_t tokens) {
  for (std::int32_t l = 0; l < cache.geometry().shape().layers; ++l)
    ASSERT_EQ(prefill_copy(cache.view(), l, 0, tokens, kv[2 * l].data(), kv[2 * l + 1].data()),
              Status::kOk);
}

class AttentionSweep : public ::testing::TestWithParam<AttnCase> {};

TEST_P(AttentionSweep, FastAndScalarMatchReferenceOnDecodedCache) {
  const AttnCase& c = GetParam();
  const std::int64_t capacity = c.context + 3;  // attend to a prefix: rows past it are ignored
  OwnedCache cache(shape_of(c, c.dtype, capacity));
  ASSERT_EQ(cache.status(), Status::kOk);
  std::mt19937 rng(static_cast<unsigned>(c.head_dim * 131 + c.context * 7 + c.q_heads));
  std::vector<std::vector<float>> kv;
  for (int i = 0; i < 4; ++i)
    kv.push_back(random_floats(static_cast<std::size_t>(c.kv_heads) * capacity * c.head_dim, rng));
  fill(cache, kv, capacity);
  const auto q = random_floats(static_cast<std::size_t>(c.q_heads) * c.head_dim, rng, -3.0f, 3.0f);
  const float scale = 1.0f / std::sqrt(float(c.head_dim));
  const std::int32_t layer = 1;

  const auto ref = reference(cache, layer, c.context, q);
  std::vector<float> out(ref.size(), -7.0f);
  std::vector<float> ws(static_cast<std::size_t>(attention_partial_floats(cache.geometry().shape())));
  ASSERT_EQ(decode_attention(cache.view(), layer, c.context, q.data(), scale, out.data(), ws.data()),
            Status::kOk);
  EXPECT_LE(max_abs_diff(out, ref), kKernelTol) << "fast kernel";

  std::vector<float> scalar(ref.size(), -7.0f);
  ASSERT_EQ(decode_attention_scalar(cache.view(), layer, c.context, q.data(), scale, scalar.data()),
            Status::kOk);
  EXPECT_LE(max_abs_diff(scalar, ref), kKernelTol) << "scalar baseline";

  // Storage rounding, measured on the reference alone.
  OwnedCache exact(shape_of(c, DType::kF32, capacity));
  ASSERT_EQ(exact.status(), Status::kOk);
  fill(exact, kv, capacity);
  const auto ref_exact = reference(exact, layer, c.context, q);
  const double rounding = max_abs_diff(ref, ref_exact);
  EXPECT_LE(rounding, storage_tol(c.dtype)) << "storage rounding of " << dtype_name(c.dtype);
  RecordProperty("storage_error", std::to_string(rounding));
}

// A subset of head_dim x context x GQA x dtype x layout x padding in which every value of every
// axis appears (several times), so the sweep stays fast under ASan.
std::vector<AttnCase> sweep_cases() {
  const std::int32_t dims[] = {64, 80, 96, 128, 256};
  const std::int64_t contexts[] = {1, 7, 64, 4099};
  // GQA ratios 1, 2, 4, 7 and MQA; the MQA group (40 heads) exceeds one kernel pass.
  const std::int32_t heads[][2] = {{8, 8}, {16, 8}, {16, 4}, {14, 2}, {40, 1}};
  std::vector<AttnCase> cases;
  for (int i = 0; i < 40; ++i) {
    AttnCase c;
    c.dtype = kAllDTypes[i % 4];
    c.layout = (i / 4) % 2 ? Layout::kPositionMajor : Layout::kHeadMajor;
    c.pad = (i / 8) % 2 == 1;
    c.head_dim = dims[(i + i / 5) % 5];
    c.context = contexts[(i / 2 + i / 8) % 4];
    c.q_heads = heads[(i / 3) % 5][0];
    c.kv_heads = heads[(i / 3) % 5][1];
    cases.push_back(c);
  }
  // Head sizes that are not a multiple of any vector length exercise the scalar tails.
  cases.push_back({72, 4099, 16, 8, DType::kF16, Layout::kHeadMajor, false});
  cases.push_back({8, 64, 14, 2, DType::kI8, Layout::kPositionMajor, true});
  cases.push_back({40, 7, 8, 1, DType::kBF16, Layout::kHeadMajor, true});
  cases.push_back({20, 300, 16, 4, DType::kF32, Layout::kPositionMajor, false});
  // fp32 at G = 8: head passes share each tile's prefetch window (padded rows: by rows).
  cases.push_back({128, 4099, 16, 2, DType::kF32, Layout::kHeadMajor, false});
  cases.push_back({128, 300, 16, 2, DType::kF32, Layout::kPositionMajor, true});
  // Groups of 4 and more heads (score blocks of kHeadsBlock heads) at head_dims of whole vectors:
  // every dtype at G = 8, head_dim 128; the pair decoders (bf16, int4) at 256; fp16 at 64 with a
  // partial last row block.
  for (DType t : kExtendedDTypes) cases.push_back({128, 300, 32, 4, t, Layout::kHeadMajor, false});
  cases.push_back({256, 64, 16, 4, DType::kBF16, Layout::kPositionMajor, false});
  cases.push_back({256, 64, 16, 4, DType::kI4, Layout::kHeadMajor, true});
  cases.push_back({64, 33, 16, 2, DType::kF16, Layout::kHeadMajor, false});
  // G = 3: fp32, fp16 and fp8 (on 512-bit targets every dtype) score and accumulate the three heads
  // as one pass, the other dtypes a pair and a single; G = 7 and 11 (on 512-bit targets blocks of
  // four, then the pass of three), G = 5 with a scalar tail.
  for (DType t : kExtendedDTypes) {
    cases.push_back({128, 300, 24, 8, t, Layout::kHeadMajor, false});
    cases.push_back({128, 300, 28, 4, t, Layout::kPositionMajor, false});
    cases.push_back({72, 33, 22, 2, t, Layout::kHeadMajor, true});
    cases.push_back({72, 33, 15, 3, t, Layout::kPositionMajor, true});
  }
  // fp32 groups of one or two heads take tiles of 256 positions: exactly one, one row more, and
  // several with a short last tile. The other dtypes take one such tile for ranges of at most
  // 256 rows (256, and 101 with a partial last row block), short tiles above (257, 600).
  for (DType t : kExtendedDTypes) {
    cases.push_back({128, 256, 8, 8, t, Layout::kHeadMajor, false});
    cases.push_back({128, 257, 16, 8, t, Layout::kPositionMajor, false});
    cases.push_back({64, 600, 16, 8, t, Layout::kHeadMajor, true});
    cases.push_back({128, 101, 16, 8, t, Layout::kHeadMajor, true});
  }
  // fp8 and int4: every layout x padding, each dtype at the longest context, and head sizes with
  // scalar tails (72, 40, 20: the tail decoders must match the vector ones).
  const DType low[] = {DType::kF8E4M3, DType::kF8E5M2, DType::kI4};
  for (int i = 0; i < 12; ++i) {
    AttnCase c;
    c.dtype = low[i % 3];
    c.layout = (i / 3) % 2 ? Layout::kPositionMajor : Layout::kHeadMajor;
    c.pad = (i / 6) % 2 == 1;
    c.head_dim = dims[(i + i / 3) % 5];
    c.context = contexts[(i / 3 + i) % 4];
    c.q_heads = heads[i % 5][0];
    c.kv_heads = heads[i % 5][1];
    cases.push_back(c);
  }
  for (DType t : low) {
    cases.push_back({128, 4099, 16, 8, t, Layout::kHeadMajor, false});
    cases.push_back({72, 300, 16, 4, t, Layout::kPositionMajor, false});
    cases.push_back({40, 64, 8, 1, t, Layout::kHeadMajor, true});
    cases.push_back({20, 7, 14, 2, t, Layout::kPositionMajor, true});
  }
  return cases;
}

std::string case_name(const ::testing::TestParamInfo<AttnCase>& info) {
  const AttnCase& c = info.param;
  return std::string(dtype_name(c.dtype)) + "_" + layout_name(c.layout) + (c.pad ? "_pad" : "") +
         "_d" + std::to_string(c.head_dim) + "_ctx" + std::to_string(c.context) + "_q" +
         std::to_string(c.q_heads) + "_kv" + std::to_string(c.kv_heads);
}

INSTANTIATE_TEST_SUITE_P(Subset, AttentionSweep, ::testing::ValuesIn(sweep_cases()), case_name);

TEST(AttentionSweepCoverage, EveryAxisValueIsCovered) {
  const auto cases = sweep_cases();
  auto covered = [&](auto pred) { return std::any_of(cases.begin(), cases.end(), pred); };
  for (std::int32_t d : {64, 80, 96, 128, 256})
    EXPECT_TRUE(covered([&](const AttnCase& c) { return c.head_dim == d; })) << d;
  for (std::int64_t t : {1, 7, 64, 4099})
    EXPECT_TRUE(covered([&](const AttnCase& c) { return c.context == t; })) << t;
  for (std::int32_t g : {1, 2, 3, 4, 5, 7, 11, 40})
    EXPECT_TRUE(covered([&](const AttnCase& c) { return c.q_heads / c.kv_heads == g; })) << g;
  for (DType t : kExtendedDTypes)
    for (Layout l : {Layout::kHeadMajor, Layout::kPositionMajor})
      for (bool pad : {false, true})
        EXPECT_TRUE(covered([&](const AttnCase& c) {
          return c.dtype == t && c.layout == l && c.pad == pad;
        }));
  // The longest context meets every dtype.
  for (DType t : kExtendedDTypes)
    EXPECT_TRUE(covered([&](const AttnCase& c) { return c.dtype == t && c.context == 4099; }));
}

class SplitMerge : public ::testing::TestWithParam<DType> {};

TEST_P(SplitMerge, SplitThenMergeEqualsOnePass) {
  AttnCase c{128, 1000, 16, 8, GetParam(), Layout::kHeadMajor, false};
  OwnedCache cache(shape_of(c, c.dtype, c.context));
  ASSERT_EQ(cache.status(), Status::kOk);
  std::mt19937 rng(11);
  std::vector<std::vector<float>> kv;
  for (int i = 0; i < 4; ++i) kv.push_back(random_floats(8 * 1000 * 128, rng));
  fill(cache, kv, c.context);
  const auto q = random_floats(16 * 128, rng, -3.0f, 3.0f);
  const float scale = 1.0f / std::sqrt(128.0f);
  const CacheShape& s = cache.geometry().shape();

  std::vector<float> one(16 * 128), ws(static_cast<std::size_t>(attention_partial_floats(s)));
  ASSERT_EQ(decode_attention(cache.view(), 0, 1000, q.data(), scale, one.data(), ws.data()),
            Status::kOk);

  const std::int64_t bounds[][2] = {{0, 0}, {0, 13}, {13, 13}, {13, 500}, {500, 999}, {999, 1000},
                                    {1000, 1000}};
  const int n = 7;
  std::vector<std::vector<float>> storage(n, std::vector<float>(ws.size()));
  std::vector<AttentionPartial> parts(n);
  std::vector<float> merged(16 * 128, -1.0f);
  const std::int32_t G = 2;
  for (std::int32_t h = 0; h < 8; ++h) {
    for (int i = 0; i < n; ++i) {
      parts[i] = attention_partial_from(storage[i].data(), s);
      ASSERT_EQ(attention_partial(cache.view(), 0, h, bounds[i][0], bounds[i][1],
                                  q.data() + h * G * 128, scale, parts[i]),
                Status::kOk);
    }
    EXPECT_TRUE(std::isinf(parts[0].max[0]) && parts[0].sum[0] == 0.0f) << "empty range";
    ASSERT_EQ(merge_partials(s, parts.data(), n, merged.data() + h * G * 128), Status::kOk);
    // A window that runs on into the next range (prefetch_to) issues hints only: every partial
    // is bit for bit the one without it.
    for (int i = 0; i < n; ++i) {
      std::vector<float> again(ws.size());
      const std::int64_t next_end = i + 1 < n ? bounds[i + 1][1] : 1000;
      ASSERT_EQ(attention_partial(cache.view(), 0, h, bounds[i][0], bounds[i][1], q.data() + h * G * 128,
                                  scale, attention_partial_from(again.data(), s), next_end),
                Status::kOk);
      EXPECT_EQ(0, std::memcmp(again.data(), storage[i].data(), again.size() * sizeof(float)))
          << "range " << i << " of head " << h;
    }
  }
  EXPECT_LE(max_abs_diff(merged, one), 1e-5);
  const auto ref = reference(cache, 0, 1000, q);
  EXPECT_LE(max_abs_diff(merged, ref), kKernelTol);

  // Only empty ranges: zeros, not NaN.
  std::vector<float> zeros(G * 128, 3.0f);
  ASSERT_EQ(merge_partials(s, parts.data(), 1, zeros.data()), Status::kOk);
  for (float z : zeros) EXPECT_EQ(z, 0.0f);
}

// merge_partials against the log-sum-exp merge in double: three partials (one empty, one holding
// the maximum of head 0, another that of head 1) over head_dim 20, a vector and a tail on every
// target.
TEST(MergePartials, WeightsAndTailMatchAMergeInDouble) {
  const CacheShape s{/*layers=*/1, /*q_heads=*/4, /*kv_heads=*/2, /*head_dim=*/20, /*capacity=*/8};
  const std::int32_t G = 2, d = 20, n = 3;
  std::vector<std::vector<float>> storage(n, std::vector<float>(attention_partial_floats(s)));
  std::vector<AttentionPartial> parts;
  const float maxes[n][2] = {{1.5f, -0.25f}, {0.0f, 0.0f}, {-2.0f, 3.0f}};
  const float sums[n][2] = {{2.0f, 1.25f}, {0.0f, 0.0f}, {5.0f, 0.5f}};
  for (std::int32_t i = 0; i < n; ++i) {
    parts.push_back(attention_partial_from(storage[i].data(), s));
    for (std::int32_t g = 0; g < G; ++g) {
      parts[i].max[g] = maxes[i][g];
      parts[i].sum[g] = sums[i][g];
      for (std::int32_t j = 0; j < d; ++j) parts[i].acc[g * d + j] = i == 1 ? 99.0f : 0.1f * (j + 1) - 0.3f * i + g;
    }
  }
  std::vector<float> out(G * d, -1.0f);
  ASSERT_EQ(merge_partials(s, parts.data(), n, out.data()), Status::kOk);
  for (std::int32_t g = 0; g < G; ++g) {
    const double m = std::max(maxes[0][g], maxes[2][g]);
    const double w0 = std::exp(maxes[0][g] - m), w2 = std::exp(maxes[2][g] - m);
    const double sum = w0 * sums[0][g] + w2 * sums[2][g];
    for (std::int32_t j = 0; j < d; ++j) {
      const double want = (w0 * parts[0].acc[g * d + j] + w2 * parts[2].acc[g * d + j]) / sum;
      EXPECT_NEAR(out[g * d + j], want, 1e-6 * (1.0 + std::abs(want))) << "head " << g << " dim " << j;
    }
  }
}

INSTANTIATE_TEST_SUITE_P(AllDTypes, SplitMerge, ::testing::ValuesIn(kExtendedDTypes),
                         [](const auto& info) { return std::string(dtype_name(info.param)); });

// The fast kernel takes each head's exponentials against a shift that is raised only when a score
// climbs more than a slack above it (kernels/attention.cc: fp32 and fp16; the other dtypes raise it
// to each tile's maximum), and a range of at most 256 rows as one tile. Here head 0's scores climb by 0.5 a position (past the slack within a tile and over
// tiles), fall back, then jump 12 above their peak and decay slowly; the other heads' scores are
// theirs times up to 1.875. Group sizes 1, 2 and 8, over ranges that take short tiles (700), one
// long tile (200) and a partial last tile (37).
class ClimbingScores : public ::testing::TestWithParam<DType> {};

TEST_P(ClimbingScores, ShiftsRaisedMidRangeMatchTheReference) {
  const std::int32_t d = 128;
  const float scale = 1.0f / std::sqrt(float(d));
  for (const auto& heads : {std::pair{8, 8}, std::pair{16, 8}, std::pair{8, 1}}) {
    for (const std::int64_t context : {700, 200, 37}) {
      AttnCase c{d, context, heads.first, heads.second, GetParam(), Layout::kHeadMajor, false};
      OwnedCache cache(shape_of(c, c.dtype, context));
      ASSERT_EQ(cache.status(), Status::kOk);
      std::mt19937 rng(static_cast<unsigned>(context + heads.first));
      // Each K row is constant, sqrt(d) * score / d, so that q = 1 scores it `score`.
      const float n = float(context), peak = 0.25f * n;
      std::vector<std::vector<float>> kv;
      for (int i = 0; i < 4; ++i) {
        std::vector<float> rows = random_floats(static_cast<std::size_t>(c.kv_heads) * context * d, rng);
        if (i % 2 == 0) {
          for (std::int32_t h = 0; h < c.kv_heads; ++h)
            for (std::int64_t t = 0; t < context; ++t) {
              const float u = float(t);
              const float score = u < n / 2 ? 0.5f * u
                                  : u < 0.75f * n ? peak - 0.5f * (u - n / 2)
                                                  : peak + 12.0f - 0.05f * (u - 0.75f * n) + 0.01f * float(h);
              std::fill_n(rows.begin() + (std::int64_t{h} * context + t) * d, d, score / std::sqrt(float(d)));
            }
        }
        kv.push_back(rows);
      }
      fill(cache, kv, context);
      std::vector<float> q(static_cast<std::size_t>(c.q_heads) * d);
      for (std::int32_t h = 0; h < c.q_heads; ++h)
        std::fill_n(q.begin() + std::int64_t{h} * d, d, 1.0f + float(h % 8) / 8.0f);
      const auto ref = reference(cache, 1, context, q);
      std::vector<float> out(ref.size(), -7.0f);
      std::vector<float> ws(static_cast<std::size_t>(attention_partial_floats(cache.geometry().shape())));
      ASSERT_EQ(decode_attention(cache.view(), 1, context, q.data(), scale, out.data(), ws.data()),
                Status::kOk);
      EXPECT_LE(max_abs_diff(out, ref), kKernelTol)
          << dtype_name(c.dtype) << " G = " << heads.first / heads.second << ", " << context << " positions";
    }
  }
}

INSTANTIATE_TEST_SUITE_P(AllDTypes, ClimbingScores, ::testing::ValuesIn(kExtendedDTypes),
                         [](const auto& info) { return std::string(dtype_name(info.param)); });

class SlidingWindow : public ::testing::TestWithParam<DType> {};

TEST_P(SlidingWindow, RingEqualsReferenceOverLastWPositions) {
  const std::int64_t W = 64;
  AttnCase c{96, W, 14, 2, GetParam(), Layout::kPositionMajor, true};
  OwnedCache ring(shape_of(c, c.dtype, W));
  OwnedCache linear(shape_of(c, c.dtype, W));
  ASSERT_EQ(ring.status(), Status::kOk);
  std::mt19937 rng(5);
  const std::int64_t row = 2 * 96;
  const float scale = 1.0f / std::sqrt(96.0f);
  const auto q = random_floats(14 * 96, rng, -3.0f, 3.0f);
  std::vector<float> ws(static_cast<std::size_t>(attention_partial_floats(ring.geometry().shape())));
  std::vector<float> out(14 * 96);

  for (std::int64_t tokens : {std::int64_t{10}, std::int64_t{64}, std::int64_t{145}}) {
    const auto k = random_floats(static_cast<std::size_t>(tokens * row), rng);
    const auto v = random_floats(static_cast<std::size_t>(tokens * row), rng);
    for (std::int64_t p = 0; p < tokens; ++p)
      ASSERT_EQ(ring_append(ring.view(), 1, p, k.data() + p * row, v.data() + p * row),
                Status::kOk);
    const std::int64_t first = std::max<std::int64_t>(0, tokens - W);
    for (std::int64_t p = first; p < tokens; ++p)
      ASSERT_EQ(append_token(linear.view(), 1, p - first, k.data() + p * row, v.data() + p * row),
                Status::kOk);
    ASSERT_EQ(decode_attention_window(ring.view(), 1, tokens, q.data(), scale, out.data(),
                                      ws.data()),
              Status::kOk);
    const auto ref = reference(linear, 1, tokens - first, q);
    EXPECT_LE(max_abs_diff(out, ref), kKernelTol) << tokens << " tokens";
  }
}

INSTANTIATE_TEST_SUITE_P(AllDTypes, SlidingWindow, ::testing::ValuesIn(kExtendedDTypes),
                         [](const auto& info) { return std::string(dtype_name(info.param)); });

TEST(AttentionArgs, BadArgumentsReturnTheRightStatus) {
  AttnCase c{64, 16, 4, 2, DType::kI8, Layout::kHeadMajor, false};
  OwnedCache cache(shape_of(c, c.dtype, 16));
  ASSERT_EQ(cache.status(), Status::kOk);
  const CacheShape& s = cache.geometry().shape();
  std::vector<float> q(4 * 64, 0.5f), out(4 * 64), ws(static_cast<std::size_t>(attention_partial_floats(s)));
  std::vector<double> dout(4 * 64), dws(32);
  const AttentionPartial p = attention_partial_from(ws.data(), s);
  EXPECT_EQ(attention_partial(cache.view(), 0, 0, 5, 4, q.data(), 1.0f, p), Status::kOutOfRange);
  EXPECT_EQ(attention_partial(cache.view(), 0, 0, 0, 17, q.data(), 1.0f, p), Status::kOutOfRange);
  EXPECT_EQ(attention_partial(cache.view(), 0, 0, 0, 3, q.data(), 1.0f, p, 17), Status::kOutOfRange);
  EXPECT_EQ(attention_partial(cache.view(), 0, 0, 0, 3, q.data(), 1.0f, p, 16), Status::kOk);
  EXPECT_EQ(attention_partial(cache.view(), 0, 0, 4, 9, q.data(), 1.0f, p, 2), Status::kOk);
  EXPECT_EQ(attention_partial(cache.view(), 0, 0, -1, 3, q.data(), 1.0f, p), Status::kOutOfRange);
  EXPECT_EQ(attention_partial(cache.view(), 0, 2, 0, 3, q.data(), 1.0f, p), Status::kOutOfRange);
  EXPECT_EQ(attention_partial(cache.view(), 2, 0, 0, 3, q.data(), 1.0f, p), Status::kOutOfRange);
  EXPECT_EQ(attention_partial(cache.view(), 0, 0, 0, 3, nullptr, 1.0f, p), Status::kNullArgument);
  EXPECT_EQ(attention_partial(cache.view(), 0, 0, 0, 3, q.data(), 1.0f, AttentionPartial{}),
            Status::kNullArgument);
  CacheView no_scales = cache.view();
  no_scales.scales = nullptr;
  EXPECT_EQ(attention_partial(no_scales, 0, 0, 0, 3, q.data(), 1.0f, p), Status::kNullArgument);
  EXPECT_EQ(decode_attention(cache.view(), 0, 17, q.data(), 1.0f, out.data(), ws.data()),
            Status::kOutOfRange);
  EXPECT_EQ(decode_attention(cache.view(), 0, 16, q.data(), 1.0f, out.data(), nullptr),
            Status::kNullArgument);
  EXPECT_EQ(decode_attention(CacheView{}, 0, 16, q.data(), 1.0f, out.data(), ws.data()),
            Status::kNullArgument);
  EXPECT_EQ(decode_attention_scalar(cache.view(), 0, 17, q.data(), 1.0f, out.data()),
            Status::kOutOfRange);
  EXPECT_EQ(decode_attention_scalar(no_scales, 0, 16, q.data(), 1.0f, out.data()),
            Status::kNullArgument);
  EXPECT_EQ(decode_attention_reference(cache.view(), 0, 17, q.data(), 1.0, dout.data(), dws.data()),
            Status::kOutOfRange);
  EXPECT_EQ(decode_attention_window(cache.view(), 0, -1, q.data(), 1.0f, out.data(), ws.data()),
            Status::kOutOfRange);
  EXPECT_EQ(merge_partials(s, nullptr, 1, out.data()), Status::kNullArgument);
  CacheShape bad = s;
  bad.q_heads = 3;
  EXPECT_EQ(merge_partials(bad, &p, 1, out.data()), Status::kInvalidShape);
  EXPECT_EQ(decode_attention(cache.view(), 0, 16, q.data(), 1.0f, out.data(), ws.data()),
            Status::kOk);
}

// The fast kernel's in-register decoders against the scalar codecs on EVERY code: with one cached
// position the output is the V row itself (softmax weight exactly 1), so out[j] must equal
// decode(code_j) * row scale, NaN codes included. head_dim 264 = 256 codes + a scalar tail of 8.
TEST(LowPrecisionDecode, FastKernelDecodesEveryCodeLikeTheCodecs) {
  for (DType t : {DType::kF8E4M3, DType::kF8E5M2, DType::kI4}) {
    for (Layout l : {Layout::kHeadMajor, Layout::kPositionMajor}) {
      const std::int32_t d = 264;
      AttnCase c{d, 1, 2, 1, t, l, false};
      OwnedCache cache(shape_of(c, t, 3));
      ASSERT_EQ(cache.status(), Status::kOk);
      const CacheGeometry& g = cache.geometry();
      std::uint8_t* v = cache.bytes() + g.byte_offset(1, KV::kValue, 0, 0);
      for (std::int32_t j = 0; j < d; ++j) {
        // fp8: codes 0..255 then a few again in the tail; int4: nibbles 0..15 cycled (-8 included).
        const int code = t == DType::kI4 ? (j * 7) % 16 : (j * 37 + j / 256) % 256;
        if (t == DType::kI4)
          v[j / 2] = static_cast<std::uint8_t>(j % 2 ? (v[j / 2] & 0x0F) | (code << 4) : code);
        else
          v[j] = static_cast<std::uint8_t>(code);
      }
      const float vscale = 0.75f;
      cache.scales()[static_cast<std::size_t>(g.scale_index(1, KV::kValue, 0, 0))] = vscale;
      // K row left all-zero codes with scale 0: score 0.
      std::vector<float> q(2 * d, 0.5f), out(2 * d), ws(static_cast<std::size_t>(attention_partial_floats(g.shape())));
      ASSERT_EQ(decode_attention(cache.view(), 1, 1, q.data(), 0.1f, out.data(), ws.data()), Status::kOk);
      for (std::int32_t h = 0; h < 2; ++h)
        for (std::int32_t j = 0; j < d; ++j) {
          const float expect = decode_element(v, t, j) * vscale;
          const float got = out[static_cast<std::size_t>(h * d + j)];
          if (std::isnan(expect)) {
            EXPECT_TRUE(std::isnan(got)) << dtype_name(t) << " element " << j;
          } else {
            EXPECT_FLOAT_EQ(got, expect) << dtype_name(t) << " element " << j;
          }
        }
    }
  }
}

// Every Highway target compiled in (AVX3, AVX2, SSE4, ... down to scalar), not only the one this
// machine dispatches to: the encoders must write the same bytes as on the best target (which the
// write tests check against the scalar codecs) and the fast kernel must match the reference.
// head_dim 88 gives every target a mix of int4 pairs, single chunks and scalar tails; G = 3, 5
// and 7 at head_dim 136 the pass of three heads (G = 3: fp32, fp16 and fp8 everywhere, every
// dtype on 512-bit targets; G = 7 after a block of four there; G = 5 and 7 for fp8 after pairs on
// 2-head targets) with 8-chunk sweeps and a tail.
TEST(SimdTarget, EveryCompiledTargetEncodesAndAttendsCorrectly) {
  const std::vector<std::int64_t> targets = hwy::SupportedAndGeneratedTargets();
  ASSERT_FALSE(targets.empty());
  for (std::int64_t target : targets) std::printf("testing target %s\n", hwy::TargetName(target));
  for (DType t : kExtendedDTypes) {
    for (const AttnCase& c : {AttnCase{88, 77, 16, 4, t, Layout::kPositionMajor, false},
                              AttnCase{136, 77, 12, 4, t, Layout::kHeadMajor, true},
                              AttnCase{136, 77, 20, 4, t, Layout::kHeadMajor, false},
                              AttnCase{136, 77, 28, 4, t, Layout::kPositionMajor, true}}) {
      std::mt19937 rng(21);
      std::vector<std::vector<float>> kv;
      for (int i = 0; i < 4; ++i)
        kv.push_back(random_floats(static_cast<std::size_t>(c.kv_heads) * 77 * c.head_dim, rng));
      const auto q = random_floats(static_cast<std::size_t>(c.q_heads) * c.head_dim, rng, -3.0f, 3.0f);
      OwnedCache best(shape_of(c, t, 77));
      ASSERT_EQ(best.status(), Status::kOk);
      fill(best, kv, 77);
      for (std::int64_t target : targets) {
        hwy::SetSupportedTargetsForTest(target);
        OwnedCache cache(shape_of(c, t, 77));
        fill(cache, kv, 77);
        ASSERT_EQ(std::memcmp(cache.bytes(), best.bytes(), static_cast<std::size_t>(cache.geometry().data_bytes())), 0)
            << dtype_name(t) << " encoded differently on " << hwy::TargetName(target);
        ASSERT_EQ(cache.scales(), best.scales()) << dtype_name(t) << " on " << hwy::TargetName(target);
        const auto ref = reference(cache, 1, 77, q);
        std::vector<float> out(ref.size());
        std::vector<float> ws(static_cast<std::size_t>(attention_partial_floats(cache.geometry().shape())));
        ASSERT_EQ(decode_attention(cache.view(), 1, 77, q.data(), 1.0f / std::sqrt(float(c.head_dim)), out.data(),
                                   ws.data()),
                  Status::kOk);
        EXPECT_STREQ(simd_target_name(), hwy::TargetName(target));
        EXPECT_LE(max_abs_diff(out, ref), kKernelTol)
            << dtype_name(t) << " on " << hwy::TargetName(target) << ", G = " << c.q_heads / c.kv_heads;
      }
      hwy::SetSupportedTargetsForTest(0);  // back to the real CPU
    }
  }
}

// fp32 groups of 3, 4, 5, 8 and 16 heads on every compiled target (the development guest dispatches to
// AVX2 only, so its own runs would never reach AVX3's blocks of 4 heads): the V phase reads each
// chunk once for a block of heads (InRegister in kernels/attention.cc). Head dims of whole and
// partial vectors (20, 34, 64, 72, 80, 128, 256); ranges shorter than a row block (7), of one
// short tile (16), with a last partial tile (33, 300), and of many tiles whose head passes share
// the window (1000); both layouts, padded rows.
TEST(SimdTarget, LargeGroupsMatchTheReferenceOnEveryTarget) {
  const std::vector<std::int64_t> targets = hwy::SupportedAndGeneratedTargets();
  struct Shape {
    std::int32_t head_dim, q_heads, kv_heads;
    std::int64_t context;
    Layout layout;
    bool pad;
  };
  const Shape shapes[] = {
      {128, 16, 2, 1000, Layout::kHeadMajor, false}, {128, 16, 2, 33, Layout::kPositionMajor, true},
      {128, 8, 2, 300, Layout::kHeadMajor, true},    {128, 32, 2, 16, Layout::kHeadMajor, false},
      {128, 32, 2, 300, Layout::kPositionMajor, false}, {80, 16, 2, 300, Layout::kHeadMajor, false},
      {72, 8, 2, 33, Layout::kHeadMajor, true},      {20, 8, 1, 300, Layout::kPositionMajor, false},
      {256, 16, 2, 300, Layout::kHeadMajor, false},  {34, 8, 2, 300, Layout::kHeadMajor, false},
      {64, 16, 2, 7, Layout::kHeadMajor, false},     {64, 32, 2, 1000, Layout::kHeadMajor, true},
      {128, 24, 8, 300, Layout::kHeadMajor, false},  {72, 15, 3, 33, Layout::kPositionMajor, true},
  };
  for (const Shape& sh : shapes) {
    AttnCase c{sh.head_dim, sh.context, sh.q_heads, sh.kv_heads, DType::kF32, sh.layout, sh.pad};
    OwnedCache cache(shape_of(c, DType::kF32, sh.context + 1));
    ASSERT_EQ(cache.status(), Status::kOk);
    std::mt19937 rng(static_cast<unsigned>(sh.head_dim * 7 + sh.q_heads + sh.context));
    std::vector<std::vector<float>> kv;
    for (int i = 0; i < 4; ++i)
      kv.push_back(random_floats(static_cast<std::size_t>(sh.kv_heads) * (sh.context + 1) * sh.head_dim, rng));
    fill(cache, kv, sh.context + 1);
    const auto q = random_floats(static_cast<std::size_t>(sh.q_heads) * sh.head_dim, rng, -3.0f, 3.0f);
    const auto ref = reference(cache, 1, sh.context, q);
    for (std::int64_t target : targets) {
      hwy::SetSupportedTargetsForTest(target);
      std::vector<float> out(ref.size(), -7.0f);
      std::vector<float> ws(static_cast<std::size_t>(attention_partial_floats(cache.geometry().shape())));
      ASSERT_EQ(decode_attention(cache.view(), 1, sh.context, q.data(),
                                 1.0f / std::sqrt(float(sh.head_dim)), out.data(), ws.data()),
                Status::kOk);
      EXPECT_LE(max_abs_diff(out, ref), kKernelTol)
          << hwy::TargetName(target) << ": G = " << sh.q_heads / sh.kv_heads << ", head_dim "
          << sh.head_dim << ", " << sh.context << " positions, " << layout_name(sh.layout)
          << (sh.pad ? ", padded" : "");
    }
    hwy::SetSupportedTargetsForTest(0);  // back to the real CPU
  }
}

TEST(SimdTarget, NamesARealTarget) {
  const std::string name = simd_target_name();
  EXPECT_FALSE(name.empty());
  EXPECT_NE(name, "Unknown");
  std::printf("dispatched Highway target: %s\n", name.c_str());
}

}  // namespace
}  // namespace kvb
