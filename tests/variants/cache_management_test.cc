#include "kernels/cache_management.h"

#include <cstring>
#include <vector>

#include "gtest/gtest.h"
#include "kernels/variant_costs.h"
#include "tests/variants/variant_fixtures.h"

namespace kvb {
namespace {

using testing::OwnedCache;

// Compares positions [0, tokens) of every row (payload bytes and int8 scales) of two caches.
void expect_same_rows(const CacheGeometry& ga, const unsigned char* a, const float* sa,
                      const CacheGeometry& gb, const unsigned char* b, const float* sb,
                      std::int64_t tokens) {
  const CacheShape& s = ga.shape();
  const auto row = static_cast<std::size_t>(dtype_row_bytes(s.dtype, s.head_dim));
  for (std::int32_t l = 0; l < s.layers; ++l)
    for (KV kv : {KV::kKey, KV::kValue})
      for (std::int32_t h = 0; h < s.kv_heads; ++h)
        for (std::int64_t t = 0; t < tokens; ++t) {
          ASSERT_EQ(std::memcmp(a + ga.byte_offset(l, kv, h, t), b + gb.byte_offset(l, kv, h, t), row), 0)
              << "layer " << l << " head " << h << " position " << t;
          if (dtype_has_row_scale(s.dtype)) {
            ASSERT_EQ(sa[ga.scale_index(l, kv, h, t)], sb[gb.scale_index(l, kv, h, t)]);
          }
        }
}

class Management : public ::testing::TestWithParam<std::tuple<Layout, DType>> {
 protected:
  CacheShape shape(std::int64_t capacity) const {
    return testing::small_shape(8, 4, 32, capacity, std::get<1>(GetParam()), std::get<0>(GetParam()));
  }
  // A cache of `capacity` with positions [0, tokens) of both layers filled.
  void fill(OwnedCache& c, std::int64_t tokens) {
    std::mt19937 rng(3);
    for (std::int32_t l = 0; l < 2; ++l)
      testing::append_all(c.view(), l, testing::random_tokens(tokens, c.geometry().shape(), rng), tokens);
  }
};

TEST_P(Management, RepackShrinkThenGrowInPlaceKeepsRows) {
  const std::int64_t tokens = 70;
  OwnedCache original(shape(100));
  ASSERT_EQ(original.status(), Status::kOk);
  fill(original, tokens);
  OwnedCache work(shape(128));  // one buffer big enough for every capacity below
  CacheGeometry g100, g72, g128;
  ASSERT_EQ(CacheGeometry::create(shape(100), &g100), Status::kOk);
  ASSERT_EQ(CacheGeometry::create(shape(72), &g72), Status::kOk);
  ASSERT_EQ(CacheGeometry::create(shape(128), &g128), Status::kOk);
  std::memcpy(work.bytes(), original.bytes(), static_cast<std::size_t>(g100.data_bytes()));
  std::copy(original.scales().begin(), original.scales().end(), work.scales().begin());

  for (StoreHint hint : {StoreHint::kCached, StoreHint::kStreaming, StoreHint::kAuto}) {
    SCOPED_TRACE(static_cast<int>(hint));
    ASSERT_EQ(repack_in_place(g100, g72, tokens, work.bytes(), work.scales().data(), hint), Status::kOk);
    expect_same_rows(g100, original.bytes(), original.scales().data(), g72, work.bytes(),
                     work.scales().data(), tokens);
    ASSERT_EQ(repack_in_place(g72, g128, tokens, work.bytes(), work.scales().data(), hint), Status::kOk);
    expect_same_rows(g100, original.bytes(), original.scales().data(), g128, work.bytes(),
                     work.scales().data(), tokens);
    ASSERT_EQ(repack_in_place(g128, g100, tokens, work.bytes(), work.scales().data(), hint), Status::kOk);
  }
}

TEST_P(Management, GrowCopyAndCloneKeepRows) {
  const std::int64_t tokens = 1030;
  const std::int64_t cap = grown_capacity(tokens, 1024);
  ASSERT_EQ(cap, 2048);
  OwnedCache src(shape(1030));
  fill(src, tokens);
  for (StoreHint hint : {StoreHint::kCached, StoreHint::kStreaming}) {
    OwnedCache grown(shape(cap));
    ASSERT_EQ(copy_cache_prefix(src.view(), grown.view(), tokens, hint), Status::kOk);
    expect_same_rows(src.geometry(), src.bytes(), src.scales().data(), grown.geometry(),
                     grown.bytes(), grown.scales().data(), tokens);
  }

  OwnedCache a(shape(1030)), b(shape(1100)), c(shape(2048));
  const CacheView clones[] = {a.view(), b.view(), c.view()};
  ASSERT_EQ(clone_cache(src.view(), clones, 3, tokens, StoreHint::kStreaming), Status::kOk);
  for (OwnedCache* d : {&a, &b, &c})
    expect_same_rows(src.geometry(), src.bytes(), src.scales().data(), d->geometry(), d->bytes(),
                     d->scales().data(), tokens);
}

INSTANTIATE_TEST_SUITE_P(LayoutsDtypes, Management,
                         ::testing::Values(std::tuple{Layout::kHeadMajor, DType::kF32},
                                           std::tuple{Layout::kHeadMajor, DType::kI8},
                                           std::tuple{Layout::kPositionMajor, DType::kBF16},
                                           std::tuple{Layout::kPositionMajor, DType::kI8},
                                           std::tuple{Layout::kHeadMajor, DType::kI4},
                                           std::tuple{Layout::kPositionMajor, DType::kF8E4M3}));

TEST(CacheManagement, GrownCapacity) {
  EXPECT_EQ(grown_capacity(1, 1024), 1024);
  EXPECT_EQ(grown_capacity(1024, 1024), 1024);
  EXPECT_EQ(grown_capacity(1025, 1024), 2048);
  EXPECT_EQ(grown_capacity(0, 1024), 0);
  EXPECT_EQ(grown_capacity(10, 0), 0);
}

TEST(CacheManagement, RejectsMismatchedOrTooLong) {
  OwnedCache a(testing::small_shape(8, 4, 32, 64, DType::kF32));
  OwnedCache b(testing::small_shape(8, 4, 64, 64, DType::kF32));  // other head_dim
  OwnedCache c(testing::small_shape(8, 4, 32, 16, DType::kF32));
  EXPECT_EQ(copy_cache_prefix(a.view(), b.view(), 8), Status::kInvalidShape);
  EXPECT_EQ(copy_cache_prefix(a.view(), c.view(), 17), Status::kOutOfRange) << "tokens > dst capacity";
  EXPECT_EQ(copy_cache_prefix(a.view(), a.view(), 8), Status::kInvalidShape) << "same buffer";
  EXPECT_EQ(repack_in_place(a.geometry(), c.geometry(), 65, a.bytes(), nullptr), Status::kOutOfRange);
  EXPECT_EQ(repack_in_place(a.geometry(), b.geometry(), 8, a.bytes(), nullptr), Status::kInvalidShape);
  EXPECT_EQ(clone_cache(a.view(), nullptr, 2, 8), Status::kNullArgument);
  EXPECT_EQ(clone_cache(a.view(), nullptr, -1, 8), Status::kOutOfRange);
  OwnedCache i8(testing::small_shape(8, 4, 32, 64, DType::kI8));
  EXPECT_EQ(repack_in_place(i8.geometry(), i8.geometry(), 8, i8.bytes(), nullptr),
            Status::kNullArgument) << "int8 needs its scales";
}

TEST(CacheManagement, CostIsPayloadPlusScales) {
  const CacheShape f = testing::small_shape(8, 4, 32, 64, DType::kF32);
  EXPECT_EQ(cache_copy_cost(f, 10).bytes_read, kv_cache_bytes(2, 4, 10, 32, DType::kF32));
  EXPECT_EQ(cache_copy_cost(f, 10).bytes_written, cache_copy_cost(f, 10).bytes_read);
  const CacheShape q = testing::small_shape(8, 4, 32, 64, DType::kI8);
  EXPECT_EQ(cache_copy_cost(q, 10).bytes_read, kv_cache_bytes(2, 4, 10, 32, DType::kI8) + 2 * 2 * 4 * 10 * 4);
}

}  // namespace
}  // namespace kvb
