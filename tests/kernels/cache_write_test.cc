#include "kernels/cache_write.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstring>
#include <iterator>
#include <limits>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "gtest/gtest.h"
#include "hwy/targets.h"
#include "kernels/codecs.h"
#include "kernels/row_access.h"
#include "kernels/row_encode.h"
#include "kernels/row_encode_avx512bf16.h"
#include "kernels/stream_copy.h"
#include "tests/kernels/test_cache.h"

namespace kvb {
namespace {

using testing::OwnedCache;
using testing::random_floats;

constexpr std::uint8_t kSentinel = 0xA5;
constexpr float kScaleSentinel = -12345.0f;

// Expected bytes of one encoded row.
std::vector<std::uint8_t> encoded(const float* x, std::int32_t d, DType t, float* scale) {
  std::vector<std::uint8_t> out(static_cast<std::size_t>(dtype_row_bytes(t, d)));
  for (std::int32_t j = 0; j < d; ++j) {
    if (t == DType::kF32) {
      std::memcpy(out.data() + 4 * j, x + j, 4);
    } else if (t == DType::kF16 || t == DType::kBF16) {
      const std::uint16_t h = t == DType::kF16 ? f32_to_f16(x[j]) : f32_to_bf16(x[j]);
      std::memcpy(out.data() + 2 * j, &h, 2);
    }
  }
  if (t == DType::kI8) {
    *scale = int8_row_scale(x, d);
    encode_int8_row(x, d, *scale, reinterpret_cast<std::int8_t*>(out.data()));
  } else if (t == DType::kF8E4M3) {
    *scale = fp8_e4m3_row_scale(x, d);
    encode_fp8_e4m3_row(x, d, *scale, out.data());
  } else if (t == DType::kF8E5M2) {
    *scale = fp8_e5m2_row_scale(x, d);
    encode_fp8_e5m2_row(x, d, *scale, out.data());
  } else if (t == DType::kI4) {
    *scale = int4_row_scale(x, d);
    encode_int4_row(x, d, *scale, out.data());
  }
  return out;
}

struct WriteCase {
  DType dtype;
  Layout layout;
  bool pad;
};

class CacheWriteTest : public ::testing::TestWithParam<WriteCase> {
 protected:
  CacheShape make_shape(std::int64_t capacity) const {
    CacheShape s;
    s.layers = 3;
    s.q_heads = 4;
    s.kv_heads = 2;
    s.head_dim = 24;  // not a multiple of 64 bytes in any dtype: padding is visible
    s.capacity = capacity;
    s.dtype = GetParam().dtype;
    s.layout = GetParam().layout;
    s.pad_rows = GetParam().pad;
    return s;
  }

  void fill_sentinel(OwnedCache& c) {
    std::memset(c.bytes(), kSentinel, static_cast<std::size_t>(c.geometry().data_bytes()));
    for (float& s : c.scales()) s = kScaleSentinel;
  }

  // Expected image of the cache: sentinel everywhere except the rows `rows` says were written.
  struct Written {
    std::int32_t layer;
    KV kv;
    std::int32_t head;
    std::int64_t slot;
    const float* src;
  };
  void expect_image(OwnedCache& c, const std::vector<Written>& rows) {
    const CacheGeometry& g = c.geometry();
    const DType t = g.shape().dtype;
    std::vector<std::uint8_t> image(static_cast<std::size_t>(g.data_bytes()), kSentinel);
    std::vector<float> scales(c.scales().size(), kScaleSentinel);
    for (const Written& w : rows) {
      float scale = 0;
      const auto bytes = encoded(w.src, g.shape().head_dim, t, &scale);
      std::memcpy(image.data() + g.byte_offset(w.layer, w.kv, w.head, w.slot), bytes.data(),
                  bytes.size());
      if (dtype_has_row_scale(t)) scales[g.scale_index(w.layer, w.kv, w.head, w.slot)] = scale;
    }
    std::size_t bad = 0;
    for (std::size_t i = 0; i < image.size(); ++i) {
      if (image[i] != c.bytes()[i] && bad++ < 5) ADD_FAILURE() << "byte " << i << " differs";
    }
    EXPECT_EQ(bad, 0u);
    for (std::size_t i = 0; i < scales.size(); ++i)
      EXPECT_EQ(scales[i], c.scales()[i]) << "scale " << i;
  }
};

// The whole token, and a run of heads (append_token_heads), which writes its heads' rows only,
// byte for byte as the whole token's call would; a range outside the heads writes nothing.
TEST_P(CacheWriteTest, AppendTokenWritesExactlyItsRows) {
  OwnedCache c(make_shape(9));
  ASSERT_EQ(c.status(), Status::kOk);
  fill_sentinel(c);
  std::mt19937 rng(1);
  const auto k = random_floats(2 * 24, rng), v = random_floats(2 * 24, rng);
  ASSERT_EQ(append_token_heads(c.view(), 2, 7, k.data(), v.data(), 1, 1), Status::kOk);
  ASSERT_EQ(append_token_heads(c.view(), 2, 7, k.data(), v.data(), 0, 0), Status::kOk);  // nothing
  for (const auto& [first, heads] : {std::pair{1, 2}, std::pair{-1, 1}, std::pair{0, -1}})
    EXPECT_EQ(append_token_heads(c.view(), 2, 7, k.data(), v.data(), first, heads), Status::kOutOfRange);
  std::vector<Written> rows = {{2, KV::kKey, 1, 7, k.data() + 24}, {2, KV::kValue, 1, 7, v.data() + 24}};
  expect_image(c, rows);
  ASSERT_EQ(append_token(c.view(), 1, 5, k.data(), v.data()), Status::kOk);
  for (std::int32_t h = 0; h < 2; ++h) {
    rows.push_back({1, KV::kKey, h, 5, k.data() + h * 24});
    rows.push_back({1, KV::kValue, h, 5, v.data() + h * 24});
  }
  expect_image(c, rows);
  // Streaming stores write the same bytes, and nothing beside them (rows of 24 elements leave
  // partial vectors at every row's end).
  ASSERT_EQ(append_token(c.view(), 0, 8, k.data(), v.data(), StoreHint::kStreaming), Status::kOk);
  ASSERT_EQ(append_token_heads(c.view(), 1, 0, k.data(), v.data(), 1, 1, StoreHint::kStreaming), Status::kOk);
  EXPECT_EQ(append_token_heads(c.view(), 1, 9, k.data(), v.data(), 0, 1, StoreHint::kStreaming), Status::kOutOfRange);
  for (std::int32_t h = 0; h < 2; ++h) {
    rows.push_back({0, KV::kKey, h, 8, k.data() + h * 24});
    rows.push_back({0, KV::kValue, h, 8, v.data() + h * 24});
  }
  rows.push_back({1, KV::kKey, 1, 0, k.data() + 24});
  rows.push_back({1, KV::kValue, 1, 0, v.data() + 24});
  expect_image(c, rows);
}

TEST_P(CacheWriteTest, PrefillCopyWritesExactlyItsRange) {
  OwnedCache c(make_shape(11));
  ASSERT_EQ(c.status(), Status::kOk);
  fill_sentinel(c);
  std::mt19937 rng(2);
  const std::int64_t T = 4, p0 = 6;
  const auto k = random_floats(2 * T * 24, rng), v = random_floats(2 * T * 24, rng);
  ASSERT_EQ(prefill_copy(c.view(), 2, p0, T, k.data(), v.data()), Status::kOk);
  std::vector<Written> rows;
  for (std::int32_t h = 0; h < 2; ++h)
    for (std::int64_t t = 0; t < T; ++t) {
      rows.push_back({2, KV::kKey, h, p0 + t, k.data() + (h * T + t) * 24});
      rows.push_back({2, KV::kValue, h, p0 + t, v.data() + (h * T + t) * 24});
    }
  expect_image(c, rows);
  EXPECT_EQ(prefill_copy(c.view(), 2, 8, 4, k.data(), v.data()), Status::kOutOfRange);  // 8+4 > 11
}

TEST_P(CacheWriteTest, RingAppendWrapsModuloCapacity) {
  OwnedCache c(make_shape(7));
  ASSERT_EQ(c.status(), Status::kOk);
  fill_sentinel(c);
  std::mt19937 rng(3);
  const auto k = random_floats(2 * 24, rng), v = random_floats(2 * 24, rng);
  ASSERT_EQ(ring_append(c.view(), 0, 7 * 3 + 4, k.data(), v.data()), Status::kOk);  // slot 4
  std::vector<Written> rows;
  for (std::int32_t h = 0; h < 2; ++h) {
    rows.push_back({0, KV::kKey, h, 4, k.data() + h * 24});
    rows.push_back({0, KV::kValue, h, 4, v.data() + h * 24});
  }
  expect_image(c, rows);
}

std::string write_case_name(const ::testing::TestParamInfo<WriteCase>& info) {
  return std::string(dtype_name(info.param.dtype)) + "_" + layout_name(info.param.layout) +
         (info.param.pad ? "_padded" : "");
}

std::vector<WriteCase> all_write_cases() {
  std::vector<WriteCase> cases;
  for (DType t : kExtendedDTypes)
    for (Layout l : {Layout::kHeadMajor, Layout::kPositionMajor})
      for (bool pad : {false, true}) cases.push_back({t, l, pad});
  return cases;
}

INSTANTIATE_TEST_SUITE_P(AllLayouts, CacheWriteTest, ::testing::ValuesIn(all_write_cases()),
                         write_case_name);

// The SIMD encoders must match the scalar codecs bit for bit, on the values where rounding is
// hardest (ties, subnormals, overflow, inf, NaN), with cached and streaming stores.
// Elements whose float product with the row's reciprocal scale rounds to another integer than
// the exact product does: the SIMD int8 encoders round the exact product once (an FMA), on every
// compiled target, with cached and streaming stores, for appends and bulk writes.
TEST(CacheWriteEncoding, Int8RoundsTheExactProductOnEveryTarget) {
  constexpr std::int32_t d = 136;  // 8 vectors and a tail on AVX3
  std::vector<float> row = {1.0f};   // max |x| = 1: scale 1 / 127
  const float inv = 1.0f / int8_row_scale(row.data(), 1);
  std::mt19937 rng(11);
  std::uniform_real_distribution<float> u(-1.0f, 1.0f);
  int differ = 0;
  while (static_cast<std::int32_t>(row.size()) < d) {
    const float x = u(rng);
    const float product = x * inv;  // one statement: nothing to fuse
    const bool two_roundings_differ = std::nearbyint(product) != std::nearbyint(static_cast<double>(x) * inv);
    if (two_roundings_differ || differ >= 16) row.push_back(x);
    differ += two_roundings_differ;
  }
  ASSERT_EQ(differ, 16);
  float scale = 0;
  const auto expect = encoded(row.data(), d, DType::kI8, &scale);
  for (std::int32_t j = 0; j < d; ++j) {
    const float exact = static_cast<float>(std::nearbyint(static_cast<double>(row[j]) * inv));
    ASSERT_EQ(static_cast<std::int8_t>(expect[j]), static_cast<std::int8_t>(exact)) << j;
  }
  for (std::int64_t target : hwy::SupportedAndGeneratedTargets()) {
    hwy::SetSupportedTargetsForTest(target);
    SCOPED_TRACE(hwy::TargetName(target));
    OwnedCache c({.layers = 1, .q_heads = 1, .kv_heads = 1, .head_dim = d, .capacity = 2, .dtype = DType::kI8});
    ASSERT_EQ(c.status(), Status::kOk);
    ASSERT_EQ(append_token(c.view(), 0, 0, row.data(), row.data()), Status::kOk);
    ASSERT_EQ(prefill_copy(c.view(), 0, 1, 1, row.data(), row.data(), StoreHint::kStreaming), Status::kOk);
    for (std::int64_t p = 0; p < 2; ++p)
      for (KV kv : {KV::kKey, KV::kValue})
        ASSERT_EQ(std::memcmp(expect.data(), c.bytes() + c.geometry().byte_offset(0, kv, 0, p), expect.size()), 0)
            << "position " << p;
  }
  hwy::SetSupportedTargetsForTest(0);  // back to the real CPU
}

TEST(CacheWriteEncoding, EdgeValuesMatchScalarCodecsBitForBit) {
  const float inf = std::numeric_limits<float>::infinity();
  const float edge[] = {0.0f, -0.0f, 1.0f, 1.0f + std::ldexp(1.0f, -11),
                        1.0f + 3 * std::ldexp(1.0f, -11), 1.0f + std::ldexp(1.0f, -8),
                        1.0f + 3 * std::ldexp(1.0f, -8), 65504.0f, 65519.0f, 65520.0f, 1e10f,
                        -1e10f, std::ldexp(1.0f, -24), std::ldexp(1.0f, -25),
                        std::ldexp(3.0f, -25), std::ldexp(1023.5f, -24), std::ldexp(1.0f, -130),
                        std::numeric_limits<float>::max(), inf, -inf, 0.5f, -63.5f, 2.5f, -2.5f};
  for (DType t : kExtendedDTypes) {
    for (StoreHint hint : {StoreHint::kCached, StoreHint::kStreaming}) {
      OwnedCache c({.layers = 1, .q_heads = 1, .kv_heads = 1, .head_dim = 64, .capacity = 7, .dtype = t});
      ASSERT_EQ(c.status(), Status::kOk);
      // Rows: edge values cycled through every lane position; rows with a scale stay finite.
      std::vector<float> k(6 * 64), v(6 * 64);
      std::size_t n = 0;
      for (float& x : k) {
        x = edge[n++ % std::size(edge)];
        if (dtype_has_row_scale(t) && !std::isfinite(x)) x = 7.0f;
      }
      for (std::size_t i = 0; i < v.size(); ++i) v[i] = -k[v.size() - 1 - i];
      // NaN elements (row scales skip them), one early in a row and one in the last vector of
      // another (a NaN that reached the max's accumulator there would not be overwritten by a
      // later vector); the SIMD int8 encoder does not promise NaN handling.
      if (t != DType::kI8) k[5] = k[2 * 64 - 1] = std::numeric_limits<float>::quiet_NaN();
      ASSERT_EQ(prefill_copy(c.view(), 0, 0, 6, k.data(), v.data(), hint), Status::kOk);
      // An append of row 1 (a NaN in its last vector) at position 6: a one-KV-head token's path.
      ASSERT_EQ(append_token(c.view(), 0, 6, k.data() + 64, v.data() + 64, hint), Status::kOk);
      for (std::int64_t p = 0; p < 7; ++p) {
        for (KV kv : {KV::kKey, KV::kValue}) {
          const float* src = (kv == KV::kKey ? k.data() : v.data()) + (p == 6 ? 1 : p) * 64;
          float scale = 0;
          const auto expect = encoded(src, 64, t, &scale);
          ASSERT_EQ(std::memcmp(expect.data(), c.bytes() + c.geometry().byte_offset(0, kv, 0, p),
                                expect.size()),
                    0)
              << dtype_name(t) << " position " << p;
          if (dtype_has_row_scale(t)) {
            EXPECT_EQ(c.scales()[c.geometry().scale_index(0, kv, 0, p)], scale);
          }
        }
      }
    }
  }
}

// One NaN at every position of a row in turn: the row scale skips it wherever it falls (the
// SIMD max keeps NaN lanes off its accumulators, and a lane that reached them could survive the
// final reduction only from some positions), on every compiled target.
TEST(CacheWriteEncoding, RowScalesSkipANaNAtEveryPosition) {
  constexpr std::int32_t d = 136;  // 8 vectors and a tail on AVX3, 17 vectors on AVX2
  for (std::int64_t target : hwy::SupportedAndGeneratedTargets()) {
    hwy::SetSupportedTargetsForTest(target);
    SCOPED_TRACE(hwy::TargetName(target));
    for (DType t : {DType::kF8E4M3, DType::kF8E5M2, DType::kI4}) {
      OwnedCache c({.layers = 1, .q_heads = 1, .kv_heads = 1, .head_dim = d, .capacity = 1, .dtype = t});
      ASSERT_EQ(c.status(), Status::kOk);
      std::mt19937 rng(5);
      const std::vector<float> base = random_floats(d, rng);
      for (std::int32_t j = 0; j < d; ++j) {
        std::vector<float> k = base, v = base;
        k[j] = std::numeric_limits<float>::quiet_NaN();
        ASSERT_EQ(append_token(c.view(), 0, 0, k.data(), v.data()), Status::kOk);
        float scale = 0;
        const auto expect = encoded(k.data(), d, t, &scale);
        ASSERT_EQ(c.scales()[c.geometry().scale_index(0, KV::kKey, 0, 0)], scale)
            << dtype_name(t) << " NaN at " << j;
        ASSERT_EQ(std::memcmp(expect.data(), c.bytes(), expect.size()), 0) << dtype_name(t) << " NaN at " << j;
      }
    }
  }
  hwy::SetSupportedTargetsForTest(0);  // back to the real CPU
}

// Rows so small that 1 / scale overflows to infinity (a subnormal scale): the codecs divide by
// the scale there (x * inf would turn a zero element into NaN, which int8 then clamped to -127
// and fp8 stored as NaN), and the SIMD encoders must give the same bytes, on every target.
TEST(CacheWriteEncoding, RowsWithASubnormalScaleDivideAndMatchTheScalarCodecs) {
  constexpr std::int32_t d = 136;
  for (std::int64_t target : hwy::SupportedAndGeneratedTargets()) {
    hwy::SetSupportedTargetsForTest(target);
    SCOPED_TRACE(hwy::TargetName(target));
    for (DType t : {DType::kI8, DType::kI4, DType::kF8E4M3, DType::kF8E5M2}) {
      OwnedCache c({.layers = 1, .q_heads = 1, .kv_heads = 1, .head_dim = d, .capacity = 1, .dtype = t});
      ASSERT_EQ(c.status(), Status::kOk);
      std::mt19937 rng(9);
      std::vector<float> k = random_floats(d, rng), v(d);
      for (float& x : k) x *= 1e-39f;  // subnormal elements: 1 / scale overflows
      for (std::int32_t j = 0; j < d; ++j) v[j] = j % 5 == 0 ? 0.0f : k[j];
      ASSERT_EQ(append_token(c.view(), 0, 0, k.data(), v.data()), Status::kOk);
      for (KV kv : {KV::kKey, KV::kValue}) {
        const float* src = kv == KV::kKey ? k.data() : v.data();
        float scale = 0;
        const auto expect = encoded(src, d, t, &scale);
        ASSERT_GT(1.0f / scale, std::numeric_limits<float>::max()) << dtype_name(t);
        EXPECT_EQ(std::memcmp(expect.data(), c.bytes() + c.geometry().byte_offset(0, kv, 0, 0), expect.size()), 0)
            << dtype_name(t) << (kv == KV::kKey ? " K" : " V (with zeros)");
        std::vector<float> decoded(d);
        const void* row = c.bytes() + c.geometry().byte_offset(0, kv, 0, 0);
        for (std::int32_t j = 0; j < d; ++j) decoded[j] = decode_element(row, t, j);
        for (std::int32_t j = 0; j < d; ++j) {
          EXPECT_FALSE(std::isnan(decoded[j])) << dtype_name(t) << " element " << j;
          if (src[j] == 0.0f) {
            EXPECT_EQ(decoded[j], 0.0f) << dtype_name(t) << " element " << j;
          }
        }
      }
    }
  }
  hwy::SetSupportedTargetsForTest(0);  // back to the real CPU
}

// int8 encodes rows four at a time where it can (one max reduction and one division for the
// group's scales): groups holding an all-zero row or a row whose 1 / scale overflows must still
// match the scalar codecs, for appends (six KV heads: a group and two rows) and prefills (six
// positions), at a compile-time head_dim (128) and a run-time one with a tail (136), on every
// compiled target.
TEST(CacheWriteEncoding, Int8RowGroupsWithZeroAndSubnormalRowsMatchTheScalarCodec) {
  for (std::int32_t d : {128, 136}) {
    std::mt19937 rng(17);
    std::vector<float> k = random_floats(6 * d, rng), v = random_floats(6 * d, rng);
    for (std::int32_t j = 0; j < d; ++j) {
      k[1 * d + j] = 0.0f;      // all-zero row: scale 0
      k[2 * d + j] *= 1e-39f;   // subnormal scale: the row divides
      v[5 * d + j] *= 1e-39f;   // in the two rows after the group
      v[4 * d + j] = 0.0f;
    }
    for (std::int64_t target : hwy::SupportedAndGeneratedTargets()) {
      hwy::SetSupportedTargetsForTest(target);
      SCOPED_TRACE(std::string(hwy::TargetName(target)) + " d " + std::to_string(d));
      OwnedCache heads({.layers = 1, .q_heads = 6, .kv_heads = 6, .head_dim = d, .capacity = 1, .dtype = DType::kI8});
      OwnedCache positions({.layers = 1, .q_heads = 1, .kv_heads = 1, .head_dim = d, .capacity = 6, .dtype = DType::kI8});
      ASSERT_EQ(heads.status(), Status::kOk);
      ASSERT_EQ(positions.status(), Status::kOk);
      ASSERT_EQ(append_token(heads.view(), 0, 0, k.data(), v.data()), Status::kOk);
      ASSERT_EQ(prefill_copy(positions.view(), 0, 0, 6, k.data(), v.data()), Status::kOk);
      for (std::int32_t row = 0; row < 6; ++row) {
        for (KV kv : {KV::kKey, KV::kValue}) {
          const float* src = (kv == KV::kKey ? k.data() : v.data()) + row * d;
          float scale = 0;
          const auto expect = encoded(src, d, DType::kI8, &scale);
          const auto& g1 = heads.geometry();
          const auto& g2 = positions.geometry();
          EXPECT_EQ(std::memcmp(expect.data(), heads.bytes() + g1.byte_offset(0, kv, row, 0), expect.size()), 0)
              << "append, row " << row;
          EXPECT_EQ(heads.scales()[g1.scale_index(0, kv, row, 0)], scale) << "append, row " << row;
          EXPECT_EQ(std::memcmp(expect.data(), positions.bytes() + g2.byte_offset(0, kv, 0, row), expect.size()), 0)
              << "prefill, row " << row;
          EXPECT_EQ(positions.scales()[g2.scale_index(0, kv, 0, row)], scale) << "prefill, row " << row;
        }
      }
    }
  }
  hwy::SetSupportedTargetsForTest(0);  // back to the real CPU
}

// One append of 22 or 23 KV heads' rows: more than one block of row scales (16), and two rows of
// K and of V after the last group of four (one group across K and V) or three (row by row). Head_dim
// 8 is narrower than a vector on AVX2 and AVX3, where the four-row encoder does not serve it (it
// recursed without end there before). A streaming append too (the four-row encoder, then the rest).
TEST(CacheWriteEncoding, Int8AppendsAcrossRowBlocksAndOfRowsNarrowerThanAVector) {
  for (std::int32_t heads : {22, 23})
  for (std::int32_t d : {8, 128}) {
    std::mt19937 rng(23);
    const std::vector<float> k = random_floats(heads * d, rng), v = random_floats(heads * d, rng);
    for (std::int64_t target : hwy::SupportedAndGeneratedTargets()) {
      hwy::SetSupportedTargetsForTest(target);
      SCOPED_TRACE(std::string(hwy::TargetName(target)) + " d " + std::to_string(d) + " heads " + std::to_string(heads));
      OwnedCache c({.layers = 1, .q_heads = heads, .kv_heads = heads, .head_dim = d, .capacity = 3, .dtype = DType::kI8});
      ASSERT_EQ(c.status(), Status::kOk);
      ASSERT_EQ(append_token(c.view(), 0, 1, k.data(), v.data()), Status::kOk);
      ASSERT_EQ(append_token(c.view(), 0, 2, k.data(), v.data(), StoreHint::kStreaming), Status::kOk);
      for (std::int32_t h = 0; h < heads; ++h) {
        for (KV kv : {KV::kKey, KV::kValue}) {
          float scale = 0;
          const auto expect = encoded((kv == KV::kKey ? k.data() : v.data()) + h * d, d, DType::kI8, &scale);
          for (std::int64_t slot : {1, 2}) {  // cached, streaming
            EXPECT_EQ(std::memcmp(expect.data(), c.bytes() + c.geometry().byte_offset(0, kv, h, slot), expect.size()), 0)
                << "head " << h << " slot " << slot;
            EXPECT_EQ(c.scales()[c.geometry().scale_index(0, kv, h, slot)], scale) << "head " << h << " slot " << slot;
          }
        }
      }
    }
  }
  hwy::SetSupportedTargetsForTest(0);  // back to the real CPU
}

// Rows long enough for the SIMD encoders' wide paths (four vectors packed into one store),
// followed by single vectors and a scalar tail; several KV heads, so one append encodes rows a
// head stride apart with their scales; many rows, so the bulk path (source prefetch, row scales
// computed a block ahead) runs too. Every byte and scale must equal the scalar codecs'.
// On every Highway target compiled in: the encoders load blocks of 8 vectors of the target's
// width before storing them (200 elements: 1 block on AVX3, 3 on AVX2, 6 on SSE4); 64, 128 and
// 256 are the head_dims whose appends the encoders unroll at compile time (WithHeadDim).
TEST(CacheWriteEncoding, WideRowsAndManyHeadsMatchScalarCodecsBitForBit) {
  for (std::int64_t target : hwy::SupportedAndGeneratedTargets()) {
    hwy::SetSupportedTargetsForTest(target);
    SCOPED_TRACE(hwy::TargetName(target));
    for (std::int32_t d : {64, 88, 128, 200, 256}) {
      for (DType t : kExtendedDTypes) {
        const CacheShape s{.layers = 2, .q_heads = 3, .kv_heads = 3, .head_dim = d, .capacity = 70, .dtype = t};
        OwnedCache c(s);
        ASSERT_EQ(c.status(), Status::kOk);
        std::mt19937 rng(static_cast<unsigned>(31 + d));
        std::vector<float> k = random_floats(static_cast<std::size_t>(s.kv_heads * s.capacity * d), rng);
        std::vector<float> v = random_floats(k.size(), rng);
        for (std::size_t i = 0; i < k.size(); i += 7) k[i] = std::nearbyint(k[i] * 8.0f) * 0.5f;  // ties
        ASSERT_EQ(prefill_copy(c.view(), 1, 0, 64, k.data(), v.data(), StoreHint::kStreaming), Status::kOk);
        // Append sources: one row per head, [kv_head][head_dim].
        std::vector<float> ak(static_cast<std::size_t>(s.kv_heads * d)), av(ak.size());
        for (std::size_t i = 0; i < ak.size(); ++i) {
          ak[i] = k[i] * 3.0f;
          av[i] = -v[i];
        }
        ASSERT_EQ(append_token(c.view(), 0, 69, ak.data(), av.data()), Status::kOk);
        ASSERT_EQ(append_token(c.view(), 0, 68, av.data(), ak.data(), StoreHint::kStreaming), Status::kOk);
        const auto check = [&](std::int32_t layer, KV kv, std::int32_t h, std::int64_t p, const float* src) {
          float scale = 0;
          const auto expect = encoded(src, d, t, &scale);
          ASSERT_EQ(std::memcmp(expect.data(), c.bytes() + c.geometry().byte_offset(layer, kv, h, p), expect.size()), 0)
              << dtype_name(t) << " d " << d << " layer " << layer << " head " << h << " position " << p;
          if (dtype_has_row_scale(t)) {
            EXPECT_EQ(c.scales()[c.geometry().scale_index(layer, kv, h, p)], scale) << dtype_name(t);
          }
        };
        for (std::int32_t h = 0; h < s.kv_heads; ++h) {
          for (std::int64_t p = 0; p < 64; ++p) {
            check(1, KV::kKey, h, p, k.data() + (h * 64 + p) * d);
            check(1, KV::kValue, h, p, v.data() + (h * 64 + p) * d);
          }
          check(0, KV::kKey, h, 69, ak.data() + h * d);
          check(0, KV::kValue, h, 69, av.data() + h * d);
          check(0, KV::kKey, h, 68, av.data() + h * d);  // the streaming append
          check(0, KV::kValue, h, 68, ak.data() + h * d);
        }
      }
    }
  }
  hwy::SetSupportedTargetsForTest(0);  // back to the real CPU
}

// bf16 encodes blocks of 8 vectors without its NaN handling when their sum is not NaN: blocks
// with a quiet or signalling NaN of either sign, with infinities of both signs (a NaN sum, no
// NaN element), with +inf alone and with none must all give f32_to_bf16's bits, on every target.
TEST(CacheWriteEncoding, Bf16BlocksWithAndWithoutNaNsMatchTheScalarCodec) {
  constexpr std::int32_t d = 256;  // two blocks on AVX3, four on AVX2
  const float inf = std::numeric_limits<float>::infinity();
  const float specials[][2] = {{std::bit_cast<float>(0x7fc00001u), 1.0f},  // quiet NaN
                               {std::bit_cast<float>(0xff800001u), 1.0f},  // signalling, negative
                               {inf, -inf},
                               {inf, 3.0f},
                               {1.0f + std::ldexp(1.0f, -8), 2.0f}};       // a tie, no special
  for (std::int64_t target : hwy::SupportedAndGeneratedTargets()) {
    hwy::SetSupportedTargetsForTest(target);
    SCOPED_TRACE(hwy::TargetName(target));
    std::mt19937 rng(17);
    for (const auto& sp : specials) {
      for (std::int32_t at : {0, 37, 127, 200, 255}) {
        OwnedCache c({.layers = 1, .q_heads = 1, .kv_heads = 1, .head_dim = d, .capacity = 2, .dtype = DType::kBF16});
        ASSERT_EQ(c.status(), Status::kOk);
        std::vector<float> row = random_floats(d, rng);
        row[static_cast<std::size_t>(at)] = sp[0];
        row[static_cast<std::size_t>((at + 61) % d)] = sp[1];
        ASSERT_EQ(append_token(c.view(), 0, 0, row.data(), row.data()), Status::kOk);
        ASSERT_EQ(prefill_copy(c.view(), 0, 1, 1, row.data(), row.data(), StoreHint::kStreaming), Status::kOk);
        float scale = 0;
        const auto expect = encoded(row.data(), d, DType::kBF16, &scale);
        for (std::int64_t p = 0; p < 2; ++p)
          ASSERT_EQ(std::memcmp(expect.data(), c.bytes() + c.geometry().byte_offset(0, KV::kKey, 0, p), expect.size()), 0)
              << "special " << sp[0] << " at " << at << " position " << p;
      }
    }
  }
  hwy::SetSupportedTargetsForTest(0);  // back to the real CPU
}

// An append's bf16 rows on every target against f32_to_bf16. AVX2 rounds them half up and checks
// each call once for ties and NaNs, redoing the call when it finds one: rows with neither, with
// one planted tie (odd and even code), one canonical NaN (0x7fffffff: its half-up code would read
// -0), zeros of both signs (codes 0 and 0x8000, which are not ties), the largest finite value
// (rounds to inf) or random bits of every class; 1 and 8 KV heads; the head_dims AVX2 encodes
// with a compile-time row length (64, 128, 256) and one with a tail of the 16-element pairs.
// Streaming appends too (their AVX2 half-up pass redoes a call with a tie after fencing).
TEST(CacheWriteEncoding, Bf16AppendsMatchTheScalarCodecWithTiesNaNsAndZerosPlanted) {
  const std::uint32_t planted[] = {0x3f818000u, 0x3f808000u, 0x7fffffffu, 0x80000000u, 0x00000000u, 0x7f7fffffu};
  std::uniform_int_distribution<std::uint32_t> bits;
  for (std::int64_t target : hwy::SupportedAndGeneratedTargets()) {
    hwy::SetSupportedTargetsForTest(target);
    SCOPED_TRACE(hwy::TargetName(target));
    std::mt19937 rng(29);
    for (std::int32_t heads : {1, 8}) {
      for (std::int32_t d : {64, 128, 136, 256}) {
        for (int plant = -2; plant < static_cast<int>(std::size(planted)); ++plant) {  // -2 random bits, -1 none
          SCOPED_TRACE(::testing::Message() << "heads " << heads << " d " << d << " plant " << plant);
          OwnedCache c({.layers = 1, .q_heads = heads, .kv_heads = heads, .head_dim = d, .capacity = 2, .dtype = DType::kBF16});
          ASSERT_EQ(c.status(), Status::kOk);
          std::vector<float> k = random_floats(static_cast<std::size_t>(heads * d), rng), v = random_floats(k.size(), rng);
          if (plant == -2)
            for (float& x : v) x = std::bit_cast<float>(bits(rng));
          if (plant >= 0) v[static_cast<std::size_t>((heads - 1) * d + 37)] = std::bit_cast<float>(planted[plant]);
          ASSERT_EQ(append_token(c.view(), 0, 1, k.data(), v.data()), Status::kOk);
          ASSERT_EQ(append_token(c.view(), 0, 0, k.data(), v.data(), StoreHint::kStreaming), Status::kOk);
          for (std::int32_t h = 0; h < heads; ++h) {
            for (KV kv : {KV::kKey, KV::kValue}) {
              float scale = 0;
              const auto expect = encoded((kv == KV::kKey ? k : v).data() + h * d, d, DType::kBF16, &scale);
              for (std::int64_t slot : {1, 0})  // cached, streaming
                ASSERT_EQ(std::memcmp(expect.data(), c.bytes() + c.geometry().byte_offset(0, kv, h, slot), expect.size()), 0)
                    << "head " << h << " slot " << slot;
            }
          }
        }
      }
    }
  }
  hwy::SetSupportedTargetsForTest(0);  // back to the real CPU
}

// The AVX512-BF16 converter (VCVTNE2PS2BF16) against f32_to_bf16 on every class of fp32 bits:
// random bit patterns (subnormals, NaNs with payloads, infinities, ties among them), rows with
// one subnormal (the instruction reads it as zero) and rows with exact zeros (their codes are 0
// too, and must stay so), widths with and without a tail, every row count it serves, cached and
// streaming (rows on and off a 64-byte line); calls it does not serve write nothing; a token's K
// and V rows in one call; then through append_token, cached and streaming, with the switch on and
// off. Runs where the CPU has it (the EMR host, the Zen 5 guest); elsewhere only the disabled
// contract is checked.
TEST(CacheWriteEncoding, Avx512Bf16ConverterMatchesTheScalarCodecOnEveryClassOfBits) {
  const bool before = detail::avx512_bf16_enabled();
  std::mt19937 rng(23);
  {
    // Switched off: nothing done, nothing written.
    detail::set_avx512_bf16_enabled(false);
    std::vector<float> src(2 * 128, 1.0f);
    std::vector<std::uint16_t> dst(2 * 128, 0xABCD);
    for (bool stream : {false, true}) EXPECT_EQ(detail::encode_bf16_rows_avx512(src.data(), 128, dst.data(), 128, 2, 128, stream), 0);
    for (bool stream : {false, true})
      EXPECT_EQ(detail::encode_bf16_token_avx512(src.data(), dst.data(), src.data() + 128, dst.data() + 128, 128, 1, 128,
                                                 stream),
                0);
    EXPECT_EQ(std::count(dst.begin(), dst.end(), 0xABCD), 2 * 128);
  }
  if (!detail::set_avx512_bf16_enabled(true)) {
    detail::set_avx512_bf16_enabled(before);
    GTEST_SKIP() << "this CPU has no AVX512-BF16";
  }
  std::uniform_int_distribution<std::uint32_t> bits;
  for (std::int32_t d : {32, 64, 96, 128, 136, 160, 256}) {
    for (std::int64_t rows : {std::int64_t{1}, detail::kMinRows, std::int64_t{3}, std::int64_t{8}, detail::kMaxRows,
                              detail::kMaxRows + 1}) {
      for (int plant : {0, 1, 2}) {  // 0: random bits only; 1: a subnormal per row; 2: zeros only
        for (bool stream : {false, true}) {
          SCOPED_TRACE(::testing::Message() << "d " << d << " rows " << rows << " plant " << plant << " stream " << stream);
          const std::int64_t stride = d + 32;
          std::vector<float> src(static_cast<std::size_t>(rows * d));
          for (float& x : src) {
            x = std::bit_cast<float>(bits(rng));
            if (plant > 0 && (std::bit_cast<std::uint32_t>(x) & 0x7f800000u) == 0) x = 1.0f;  // no stray subnormal
          }
          for (std::int64_t r = 0; plant > 0 && r < rows; ++r)
            src[static_cast<std::size_t>(r * d + (r * 37) % d)] = plant == 1 ? std::bit_cast<float>(0x80000301u) : 0.0f;
          // Rows start on a 64-byte line where stride * 2 bytes is a multiple of 64, else every other
          // row or fewer: both store kinds of the streaming path.
          std::vector<std::uint16_t> buf(static_cast<std::size_t>(rows * stride + 32), 0xABCD);
          std::uint16_t* const dst = buf.data() + (64 - reinterpret_cast<std::uintptr_t>(buf.data()) % 64) % 64 / 2;
          const std::int32_t done = detail::encode_bf16_rows_avx512(src.data(), d, dst, stride, rows, d, stream);
          stream_fence();
          const bool served = rows >= detail::kMinRows && rows <= detail::kMaxRows;
          ASSERT_EQ(done, served ? d - d % 32 : 0);
          for (std::int64_t r = 0; r < rows; ++r) {
            for (std::int32_t j = 0; j < d; ++j) {
              const float x = src[static_cast<std::size_t>(r * d + j)];
              const std::uint16_t want = j < done ? f32_to_bf16(x) : std::uint16_t{0xABCD};
              ASSERT_EQ(dst[static_cast<std::size_t>(r * stride + j)], want)
                  << "row " << r << " element " << j << " bits 0x" << std::hex << std::bit_cast<std::uint32_t>(x);
            }
          }
        }
      }
    }
  }
  // A token's K and V rows in one call: both sets written, and a subnormal in either set alone
  // (the other's codes hold no +-0) rewrites its pair.
  for (std::int32_t d : {64, 128, 160}) {
    for (std::int64_t rows : {std::int64_t{1}, std::int64_t{2}, std::int64_t{8}, detail::kMaxRows, detail::kMaxRows + 1}) {
      for (int plant : {0, 1, 2}) {  // 0: none; 1: a subnormal in K's last row; 2: in V's last row
        for (bool stream : {false, true}) {
          SCOPED_TRACE(::testing::Message() << "token d " << d << " rows " << rows << " plant " << plant << " stream " << stream);
          const std::int64_t stride = d + 64;
          std::vector<float> k(static_cast<std::size_t>(rows * d)), v(k.size());
          for (float& x : k) x = 1.0f + static_cast<float>(bits(rng) % 1000) / 7.0f;
          for (float& x : v) x = -1.0f - static_cast<float>(bits(rng) % 1000) / 3.0f;
          if (plant == 1) k.back() = std::bit_cast<float>(0x00000301u);
          if (plant == 2) v[static_cast<std::size_t>((rows - 1) * d + 3)] = std::bit_cast<float>(0x80000301u);
          std::vector<std::uint16_t> buf(static_cast<std::size_t>(2 * rows * stride + 32), 0xABCD);
          std::uint16_t* const k_dst = buf.data() + (64 - reinterpret_cast<std::uintptr_t>(buf.data()) % 64) % 64 / 2;
          std::uint16_t* const v_dst = k_dst + rows * stride;
          const std::int32_t done =
              detail::encode_bf16_token_avx512(k.data(), k_dst, v.data(), v_dst, stride, rows, d, stream);
          stream_fence();
          ASSERT_EQ(done, rows <= detail::kMaxRows ? d - d % 32 : 0);
          for (std::int64_t r = 0; r < rows; ++r) {
            for (std::int32_t j = 0; j < d; ++j) {
              const auto at = static_cast<std::size_t>(r * d + j);
              const auto o = static_cast<std::size_t>(r * stride + j);
              ASSERT_EQ(k_dst[o], j < done ? f32_to_bf16(k[at]) : std::uint16_t{0xABCD}) << "K row " << r << " element " << j;
              ASSERT_EQ(v_dst[o], j < done ? f32_to_bf16(v[at]) : std::uint16_t{0xABCD}) << "V row " << r << " element " << j;
            }
          }
        }
      }
    }
  }
  // Through the cache writes, the converter on and off give the scalar codec's bytes, for one,
  // two and eight KV heads (one-row and several-row token calls).
  for (bool on : {true, false}) {
    for (StoreHint hint : {StoreHint::kCached, StoreHint::kStreaming}) {
      for (std::int32_t heads : {1, 2, 8}) {
        detail::set_avx512_bf16_enabled(on);
        SCOPED_TRACE(::testing::Message() << (on ? "AVX512-BF16" : "integer rounding")
                                          << (hint == StoreHint::kStreaming ? ", streaming" : ", cached") << ", "
                                          << heads << " KV heads");
        OwnedCache c({.layers = 2, .q_heads = 8, .kv_heads = heads, .head_dim = 128, .capacity = 4, .dtype = DType::kBF16});
        ASSERT_EQ(c.status(), Status::kOk);
        std::vector<float> k(static_cast<std::size_t>(heads) * 128), v(k.size());
        for (float& x : k) x = std::bit_cast<float>(bits(rng));
        for (float& x : v) x = std::bit_cast<float>(bits(rng) & 0x807fffffu);  // zeros and subnormals
        for (std::int32_t layer = 0; layer < 2; ++layer) {
          ASSERT_EQ(append_token(c.view(), layer, 3, k.data(), v.data(), hint), Status::kOk);
          for (std::int32_t h = 0; h < heads; ++h) {
            for (KV kv : {KV::kKey, KV::kValue}) {
              float scale = 0;
              const auto expect = encoded((kv == KV::kKey ? k : v).data() + h * 128, 128, DType::kBF16, &scale);
              ASSERT_EQ(std::memcmp(expect.data(), c.bytes() + c.geometry().byte_offset(layer, kv, h, 3), expect.size()), 0)
                  << "layer " << layer << " head " << h;
            }
          }
        }
      }
    }
  }
  detail::set_avx512_bf16_enabled(before);
}

// fp8 SIMD encoder on the hardest inputs: rows whose max is the format max (so the row scale is
// exactly 1 and the stored values are the inputs), filled with every positive code's value and
// every midpoint (a tie) between neighbouring codes, both signs, subnormals included.
TEST(CacheWriteEncoding, Fp8TiesAndSubnormalsMatchScalarCodecsBitForBit) {
  for (DType t : {DType::kF8E4M3, DType::kF8E5M2}) {
    const bool e4 = t == DType::kF8E4M3;
    const int max_code = e4 ? 0x7E : 0x7B;
    auto value = [&](int c) {
      return e4 ? fp8_e4m3_to_f32(static_cast<std::uint8_t>(c)) : fp8_e5m2_to_f32(static_cast<std::uint8_t>(c));
    };
    std::vector<float> x;
    for (int c = 0; c < max_code; ++c) {
      x.push_back(value(c));
      x.push_back(0.5f * (value(c) + value(c + 1)));  // exact in fp32
      x.push_back(-std::nextafter(x.back(), 0.0f));   // just below the tie, negative
    }
    const std::int32_t d = 256;
    CacheShape s;
    s.layers = 1;
    s.q_heads = 1;
    s.kv_heads = 1;
    s.head_dim = d;
    s.capacity = static_cast<std::int64_t>((x.size() + d - 2) / (d - 1));
    s.dtype = t;
    OwnedCache c(s);
    ASSERT_EQ(c.status(), Status::kOk);
    std::vector<float> rows(static_cast<std::size_t>(s.capacity * d), 0.0f);
    for (std::int64_t p = 0; p < s.capacity; ++p) {
      rows[static_cast<std::size_t>(p * d)] = value(max_code);  // row max -> scale exactly 1
      for (std::int32_t j = 1; j < d; ++j) {
        const std::size_t i = static_cast<std::size_t>(p * (d - 1) + j - 1);
        if (i < x.size()) rows[static_cast<std::size_t>(p * d + j)] = (j % 3 ? 1.0f : -1.0f) * x[i];
      }
    }
    ASSERT_EQ(prefill_copy(c.view(), 0, 0, s.capacity, rows.data(), rows.data()), Status::kOk);
    for (std::int64_t p = 0; p < s.capacity; ++p) {
      float scale = 0;
      const auto expect = encoded(rows.data() + p * d, d, t, &scale);
      ASSERT_EQ(scale, 1.0f);
      const std::uint8_t* got = c.bytes() + c.geometry().byte_offset(0, KV::kKey, 0, p);
      for (std::int32_t j = 0; j < d; ++j)
        ASSERT_EQ(got[j], expect[static_cast<std::size_t>(j)])
            << dtype_name(t) << " value " << rows[static_cast<std::size_t>(p * d + j)];
    }
  }
}

// encode_token's half-precision rows, which append_token no longer sends there (fp16 always, bf16
// where the CPU has AVX512-BF16): still the scalar codecs' bits for K and V, on every target,
// cached and streamed, at a head_dim unrolled at compile time (128) and one that is not (88).
TEST(CacheWriteEncoding, EncodeTokenHalfRowsMatchTheScalarCodecs) {
  for (std::int64_t target : hwy::SupportedAndGeneratedTargets()) {
    hwy::SetSupportedTargetsForTest(target);
    SCOPED_TRACE(hwy::TargetName(target));
    for (std::int32_t d : {88, 128}) {
      for (DType t : {DType::kF16, DType::kBF16}) {
        for (bool stream : {false, true}) {
          constexpr std::int64_t kRows = 2, kStride = 320;  // destination rows 640 bytes apart
          std::mt19937 rng(static_cast<unsigned>(d));
          const std::vector<float> k = random_floats(static_cast<std::size_t>(kRows * d), rng, -70000.0f, 70000.0f);
          const std::vector<float> v = random_floats(k.size(), rng);
          alignas(64) std::uint16_t kd[kRows * kStride] = {}, vd[kRows * kStride] = {};
          encode_token({k.data(), kd, nullptr}, {v.data(), vd, nullptr}, kStride, kRows, d, t, 1, stream);
          for (std::int64_t r = 0; r < kRows; ++r)
            for (std::int32_t j = 0; j < d; ++j) {
              const float x = k[r * d + j], y = v[r * d + j];
              ASSERT_EQ(kd[r * kStride + j], t == DType::kF16 ? f32_to_f16(x) : f32_to_bf16(x))
                  << dtype_name(t) << " d " << d << " K row " << r << " element " << j;
              ASSERT_EQ(vd[r * kStride + j], t == DType::kF16 ? f32_to_f16(y) : f32_to_bf16(y))
                  << dtype_name(t) << " d " << d << " V row " << r << " element " << j;
            }
        }
      }
    }
  }
  hwy::SetSupportedTargetsForTest(0);  // back to the real CPU
}

TEST(CacheWriteArgs, BadArgumentsReturnTheRightStatus) {
  CacheShape s;
  s.layers = 2;
  s.q_heads = 2;
  s.kv_heads = 1;
  s.head_dim = 8;
  s.capacity = 4;
  s.dtype = DType::kI8;
  OwnedCache c(s);
  ASSERT_EQ(c.status(), Status::kOk);
  std::vector<float> row(8, 1.0f);
  EXPECT_EQ(append_token(c.view(), 0, 4, row.data(), row.data()), Status::kOutOfRange);
  EXPECT_EQ(append_token(c.view(), 0, -1, row.data(), row.data()), Status::kOutOfRange);
  EXPECT_EQ(append_token(c.view(), 2, 0, row.data(), row.data()), Status::kOutOfRange);
  EXPECT_EQ(append_token(c.view(), 0, 0, nullptr, row.data()), Status::kNullArgument);
  CacheView no_scales = c.view();
  no_scales.scales = nullptr;
  EXPECT_EQ(append_token(no_scales, 0, 0, row.data(), row.data()), Status::kNullArgument);
  EXPECT_EQ(ring_append(c.view(), 0, -3, row.data(), row.data()), Status::kOutOfRange);
  EXPECT_EQ(prefill_copy(c.view(), 0, 0, -1, row.data(), row.data()), Status::kOutOfRange);
  EXPECT_EQ(append_token(CacheView{}, 0, 0, row.data(), row.data()), Status::kNullArgument);
  EXPECT_EQ(append_token(c.view(), 1, 3, row.data(), row.data()), Status::kOk);
}

}  // namespace
}  // namespace kvb
