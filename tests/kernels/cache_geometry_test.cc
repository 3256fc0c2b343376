#include "kernels/cache_geometry.h"

#include <iterator>

#include "gtest/gtest.h"

namespace kvb {
namespace {

CacheShape qwen3(std::int64_t capacity, DType dtype = DType::kF32,
                 Layout layout = Layout::kHeadMajor) {
  return {.layers = 28, .q_heads = 16, .kv_heads = 8, .head_dim = 128, .capacity = capacity,
          .dtype = dtype, .layout = layout};
}

TEST(CacheSize, Qwen3SixHundredMillionFp32At1024Tokens) {
  EXPECT_EQ(kv_cache_bytes(28, 8, 1024, 128, DType::kF32), 234881024);
  EXPECT_EQ(kv_cache_bytes(28, 8, 1024, 128, DType::kF16), 234881024 / 2);
  EXPECT_EQ(kv_cache_bytes(28, 8, 1024, 128, DType::kI8), 234881024 / 4);
  CacheGeometry g;
  ASSERT_EQ(CacheGeometry::create(qwen3(1024), &g), Status::kOk);
  EXPECT_EQ(g.data_bytes(), 234881024);
  EXPECT_EQ(g.kv_bytes_per_layer(1024) * 28, 234881024);
  EXPECT_EQ(g.scale_bytes(), 0);
  EXPECT_EQ(g.group_size(), 2);
}

TEST(CacheSize, Int8AddsOneScalePerRow) {
  CacheGeometry g;
  ASSERT_EQ(CacheGeometry::create(qwen3(1024, DType::kI8), &g), Status::kOk);
  EXPECT_EQ(g.data_bytes(), 234881024 / 4);
  EXPECT_EQ(g.scale_bytes(), 2LL * 28 * 8 * 1024 * 4);
  EXPECT_EQ(g.kv_bytes_per_layer(10), 2LL * 8 * 10 * (128 + 4));
}

TEST(CacheOffsets, HeadMajorFormula) {
  CacheShape s = qwen3(1000);
  s.head_dim = 96;
  CacheGeometry g;
  ASSERT_EQ(CacheGeometry::create(s, &g), Status::kOk);
  const std::int64_t L = 5, kv = 1, h = 3, p = 777, d = 17;
  const std::int64_t expect = (((L * 2 + kv) * 8 + h) * 1000 + p) * 96 + d;
  EXPECT_EQ(g.element_offset(5, KV::kValue, 3, 777, 17), expect);
  EXPECT_EQ(g.byte_offset(5, KV::kValue, 3, 777, 17), expect * 4);
  EXPECT_EQ(g.position_stride(), 96);
  EXPECT_EQ(g.head_stride(), 1000 * 96);
  EXPECT_EQ(g.scale_index(5, KV::kValue, 3, 777), ((L * 2 + kv) * 8 + h) * 1000 + p);
  EXPECT_EQ(g.layer_data_bytes(), 2LL * 8 * 1000 * 96 * 4);
}

TEST(CacheOffsets, PositionMajorFormula) {
  CacheGeometry g;
  ASSERT_EQ(CacheGeometry::create(qwen3(1000, DType::kF16, Layout::kPositionMajor), &g),
            Status::kOk);
  const std::int64_t L = 27, kv = 0, h = 7, p = 999, d = 127;
  const std::int64_t expect = (((L * 2 + kv) * 1000 + p) * 8 + h) * 128 + d;
  EXPECT_EQ(g.element_offset(27, KV::kKey, 7, 999, 127), expect);
  EXPECT_EQ(g.byte_offset(27, KV::kKey, 7, 999, 127), expect * 2);
  // The offset of the very last element is data size - 1.
  EXPECT_EQ(g.element_offset(27, KV::kValue, 7, 999, 127), g.data_bytes() / 2 - 1);
}

TEST(CacheOffsets, LargeCachesUse64BitOffsets) {
  CacheGeometry g;
  ASSERT_EQ(CacheGeometry::create(qwen3(1 << 20), &g), Status::kOk);  // 235 GiB of geometry
  EXPECT_EQ(g.data_bytes(), 234881024LL * 1024);
  EXPECT_EQ(g.byte_offset(27, KV::kValue, 7, (1 << 20) - 1, 127), g.data_bytes() - 4);
}

TEST(CacheOffsets, PaddedRowsAreMultiplesOf64Bytes) {
  CacheShape s = qwen3(16);
  s.head_dim = 72;
  s.pad_rows = true;
  CacheGeometry g;
  ASSERT_EQ(CacheGeometry::create(s, &g), Status::kOk);
  EXPECT_EQ(g.row_elems(), 80);  // 288 bytes -> 320
  EXPECT_EQ(g.row_bytes(), 320);
  EXPECT_EQ(g.element_offset(0, KV::kKey, 0, 1), 80);
  EXPECT_EQ(g.kv_bytes_per_layer(16), 2LL * 8 * 16 * 72 * 4);  // padding excluded
  s.dtype = DType::kI8;
  ASSERT_EQ(CacheGeometry::create(s, &g), Status::kOk);
  EXPECT_EQ(g.row_elems(), 128);
  s.head_dim = 128;
  s.dtype = DType::kF16;
  ASSERT_EQ(CacheGeometry::create(s, &g), Status::kOk);
  EXPECT_EQ(g.row_elems(), 128);  // already aligned
}

TEST(CacheGeometryValidation, RejectsImpossibleShapes) {
  CacheGeometry g;
  CacheShape s = qwen3(16);
  s.head_dim = 0;
  EXPECT_EQ(CacheGeometry::create(s, &g), Status::kInvalidShape);
  s = qwen3(16);
  s.q_heads = 12;
  s.kv_heads = 8;
  EXPECT_EQ(CacheGeometry::create(s, &g), Status::kInvalidShape);
  s = qwen3(0);
  EXPECT_EQ(CacheGeometry::create(s, &g), Status::kInvalidShape);
  s = qwen3(16);
  s.layers = -1;
  EXPECT_EQ(CacheGeometry::create(s, &g), Status::kInvalidShape);
  s = qwen3(16);
  s.kv_heads = 0;
  EXPECT_EQ(CacheGeometry::create(s, &g), Status::kInvalidShape);
  s = qwen3(std::int64_t{1} << 50);  // would overflow the byte count
  EXPECT_EQ(CacheGeometry::create(s, &g), Status::kInvalidShape);
  EXPECT_EQ(CacheGeometry::create(qwen3(16), nullptr), Status::kNullArgument);
}

TEST(CacheSize, Int4IsHalfAByteAndFp8OneBytePerElement) {
  EXPECT_EQ(kv_cache_bytes(28, 8, 1024, 128, DType::kI4), 234881024 / 8);
  EXPECT_EQ(kv_cache_bytes(28, 8, 1024, 128, DType::kF8E4M3), 234881024 / 4);
  EXPECT_EQ(kv_cache_bytes(28, 8, 1024, 128, DType::kF8E5M2), 234881024 / 4);
  EXPECT_EQ(dtype_row_bytes(DType::kI4, 128), 64);
  EXPECT_EQ(dtype_row_bytes(DType::kF32, 3), 12);
  EXPECT_EQ(dtype_bytes(DType::kI4), 0u);  // sub-byte: callers must use dtype_row_bytes
  EXPECT_EQ(dtype_bits(DType::kI4), 4);
  CacheGeometry g;
  ASSERT_EQ(CacheGeometry::create(qwen3(1024, DType::kI4), &g), Status::kOk);
  EXPECT_EQ(g.row_bytes(), 64);
  EXPECT_EQ(g.data_bytes(), 234881024 / 8);
  EXPECT_EQ(g.layer_data_bytes() * 28, 234881024 / 8);
  EXPECT_EQ(g.scale_bytes(), 28LL * 2 * 8 * 1024 * 4);
  EXPECT_EQ(g.kv_bytes_per_layer(1024), 2LL * 8 * 1024 * (64 + 4));
  for (DType t : {DType::kF8E4M3, DType::kF8E5M2}) {
    ASSERT_EQ(CacheGeometry::create(qwen3(1024, t), &g), Status::kOk);
    EXPECT_EQ(g.data_bytes(), 234881024 / 4);
    EXPECT_EQ(g.kv_bytes_per_layer(1024), 2LL * 8 * 1024 * (128 + 4));
  }
}

TEST(CacheOffsets, Int4OffsetsCountHalfBytes) {
  for (Layout l : {Layout::kHeadMajor, Layout::kPositionMajor}) {
    CacheShape s = qwen3(100, DType::kI4, l);
    s.head_dim = 72;
    CacheGeometry g;
    ASSERT_EQ(CacheGeometry::create(s, &g), Status::kOk);
    EXPECT_EQ(g.byte_offset(1, KV::kValue, 3, 7, 10), g.element_offset(1, KV::kValue, 3, 7, 10) / 2);
    EXPECT_EQ(g.byte_offset(1, KV::kValue, 3, 7, 11), g.byte_offset(1, KV::kValue, 3, 7, 10));
    EXPECT_EQ(g.position_stride_bytes(), l == Layout::kHeadMajor ? 36 : 36 * 8);
    s.pad_rows = true;  // 36 bytes -> 64 bytes = 128 elements
    ASSERT_EQ(CacheGeometry::create(s, &g), Status::kOk);
    EXPECT_EQ(g.row_elems(), 128);
    EXPECT_EQ(g.row_bytes(), 64);
    EXPECT_EQ(g.data_bytes(), 28LL * 2 * 8 * 100 * 64);
    EXPECT_EQ(g.kv_bytes_per_layer(100), 2LL * 8 * 100 * (36 + 4));  // padding excluded
  }
}

TEST(CacheGeometryValidation, OddHeadDimIsInvalidForInt4Only) {
  CacheGeometry g;
  CacheShape s = qwen3(16, DType::kI4);
  s.head_dim = 65;
  EXPECT_EQ(CacheGeometry::create(s, &g), Status::kInvalidShape);
  s.pad_rows = true;
  EXPECT_EQ(CacheGeometry::create(s, &g), Status::kInvalidShape);
  for (DType t : {DType::kF8E4M3, DType::kF8E5M2, DType::kI8, DType::kF16}) {
    s.dtype = t;
    EXPECT_EQ(CacheGeometry::create(s, &g), Status::kOk) << dtype_name(t);
  }
}

TEST(Names, RoundTrip) {
  EXPECT_EQ(std::size(kAllDTypes), 4u);  // the core dtypes default sweeps use
  EXPECT_EQ(std::size(kExtendedDTypes), 7u);
  DType n;
  ASSERT_TRUE(parse_dtype("fp8_e4m3", &n));
  EXPECT_EQ(n, DType::kF8E4M3);
  ASSERT_TRUE(parse_dtype("fp8_e5m2", &n));
  EXPECT_EQ(n, DType::kF8E5M2);
  ASSERT_TRUE(parse_dtype("int4", &n));
  EXPECT_EQ(n, DType::kI4);
  for (DType t : kExtendedDTypes) {
    DType back;
    ASSERT_TRUE(parse_dtype(dtype_name(t), &back));
    EXPECT_EQ(back, t);
  }
  DType t;
  EXPECT_FALSE(parse_dtype("fp8", &t));
  Layout l;
  ASSERT_TRUE(parse_layout("position_major", &l));
  EXPECT_EQ(l, Layout::kPositionMajor);
  EXPECT_FALSE(parse_layout("row_major", &l));
  EXPECT_FALSE(parse_layout(nullptr, &l));
}

}  // namespace
}  // namespace kvb
