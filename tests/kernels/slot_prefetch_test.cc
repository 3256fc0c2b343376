#include "kernels/slot_prefetch.h"

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "hwy/targets.h"
#include "kernels/cache_write.h"
#include "kernels/codecs.h"
#include "tests/kernels/setting_guard.h"
#include "tests/kernels/test_cache.h"

namespace kvb {
namespace {

using testing::OwnedCache;
using testing::random_floats;

using RequestGuard = testing::SettingGuard<SlotPrefetch, slot_prefetch, set_slot_prefetch>;

constexpr SlotPrefetch kAll[] = {SlotPrefetch::kWrite, SlotPrefetch::kRead, SlotPrefetch::kNone};

TEST(SlotPrefetch, NamesParseBackAndUnknownNamesAreRefused) {
  for (SlotPrefetch p : kAll) {
    SlotPrefetch parsed = p == SlotPrefetch::kWrite ? SlotPrefetch::kNone : SlotPrefetch::kWrite;
    ASSERT_TRUE(parse_slot_prefetch(slot_prefetch_name(p), &parsed)) << slot_prefetch_name(p);
    EXPECT_EQ(parsed, p);
  }
  SlotPrefetch untouched = SlotPrefetch::kRead;
  for (const char* bad : {"", "W", "t2", "nta", "auto", "write"}) {
    EXPECT_FALSE(parse_slot_prefetch(bad, &untouched)) << bad;
    EXPECT_EQ(untouched, SlotPrefetch::kRead);
  }
}

TEST(SlotPrefetch, SetIsWhatTheEncodersRead) {
  RequestGuard guard;
  for (SlotPrefetch p : {SlotPrefetch::kNone, SlotPrefetch::kRead, SlotPrefetch::kWrite}) {
    set_slot_prefetch(p);
    EXPECT_EQ(slot_prefetch(), p);
  }
}

// A request changes when the slot's lines arrive, never what is written: under each request, on
// every Highway target, an int8 append of one, two (the token encoder) and eight KV heads (the
// blocks of four rows) writes the scalar codec's bytes and scales, and nothing beside its slot.
TEST(SlotPrefetch, Int8AppendsWriteTheSameBytesUnderEveryRequest) {
  RequestGuard guard;
  constexpr std::int32_t kD = 128;
  for (std::int32_t heads : {1, 2, 8}) {
    std::mt19937 rng(heads);
    const std::vector<float> k = random_floats(heads * kD, rng), v = random_floats(heads * kD, rng);
    for (SlotPrefetch p : kAll) {
      set_slot_prefetch(p);
      for (std::int64_t target : hwy::SupportedAndGeneratedTargets()) {
        hwy::SetSupportedTargetsForTest(target);
        SCOPED_TRACE(std::string(hwy::TargetName(target)) + " request " + slot_prefetch_name(p) + " heads " +
                     std::to_string(heads));
        OwnedCache c({.layers = 2, .q_heads = 16, .kv_heads = heads, .head_dim = kD, .capacity = 3,
                      .dtype = DType::kI8});
        ASSERT_EQ(c.status(), Status::kOk);
        ASSERT_EQ(append_token(c.view(), 1, 1, k.data(), v.data()), Status::kOk);
        for (std::int32_t layer = 0; layer < 2; ++layer)
        for (std::int32_t h = 0; h < heads; ++h)
        for (KV kv : {KV::kKey, KV::kValue}) {
          const float* x = (kv == KV::kKey ? k.data() : v.data()) + h * kD;
          const float scale = int8_row_scale(x, kD);
          std::int8_t expect[kD];
          encode_int8_row(x, kD, scale, expect);
          for (std::int64_t slot = 0; slot < 3; ++slot) {
            const std::uint8_t* got = c.bytes() + c.geometry().byte_offset(layer, kv, h, slot);
            const float got_scale = c.scales()[c.geometry().scale_index(layer, kv, h, slot)];
            if (layer == 1 && slot == 1) {
              EXPECT_EQ(std::memcmp(expect, got, kD), 0) << "head " << h;
              EXPECT_EQ(got_scale, scale) << "head " << h;
            } else {
              EXPECT_EQ(std::count(got, got + kD, 0), kD) << "layer " << layer << " head " << h << " slot " << slot;
              EXPECT_EQ(got_scale, 0.0f) << "layer " << layer << " head " << h << " slot " << slot;
            }
          }
        }
      }
      hwy::SetSupportedTargetsForTest(0);  // back to the real CPU
    }
  }
}

// The tuned table (kernels/slot_prefetch.cc): w only where it measured faster (AMD family 26),
// t0 for everything else, unknown CPUs included.
TEST(SlotPrefetch, TunedRequestIsWriteOnlyOnAmdFamily26) {
  EXPECT_EQ(tuned_slot_prefetch("AuthenticAMD", 26), SlotPrefetch::kWrite);
  EXPECT_EQ(tuned_slot_prefetch("AuthenticAMD", 25), SlotPrefetch::kRead);
  EXPECT_EQ(tuned_slot_prefetch("GenuineIntel", 6), SlotPrefetch::kRead);
  EXPECT_EQ(tuned_slot_prefetch("GenuineIntel", 26), SlotPrefetch::kRead);
  EXPECT_EQ(tuned_slot_prefetch("", -1), SlotPrefetch::kRead);
}

}  // namespace
}  // namespace kvb
