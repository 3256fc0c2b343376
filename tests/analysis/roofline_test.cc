#include "analysis/roofline.h"

#include <gtest/gtest.h>

namespace kvb {
namespace {

TEST(RooflinePoint, FromCostModelAndTime) {
  // 1e9 bytes read + 1e8 written, 2.2e9 flops in 0.1 s = 1e8 ns.
  const auto p = roofline_point(1e9, 1e8, 2.2e9, 1e8);
  ASSERT_TRUE(p.has_value());
  EXPECT_DOUBLE_EQ(p->ai_flop_per_byte, 2.0);
  EXPECT_DOUBLE_EQ(p->gflops, 22.0);
  EXPECT_DOUBLE_EQ(p->gbps, 11.0);
}

TEST(RooflinePoint, MissingOrZeroDataHasNoPoint) {
  EXPECT_FALSE(roofline_point(std::nullopt, std::nullopt, 1e6, 1e3));
  EXPECT_FALSE(roofline_point(1e6, 0, std::nullopt, 1e3));
  EXPECT_FALSE(roofline_point(1e6, 0, 0, 1e3));
  EXPECT_FALSE(roofline_point(1e6, 0, 1e6, 0));
  EXPECT_TRUE(roofline_point(1e6, std::nullopt, 1e6, 1e3));  // written not measured: read only
}

TEST(Attainable, MinOfMemoryAndComputeRoofs) {
  EXPECT_DOUBLE_EQ(attainable_gflops(0.5, 100, 1000.0), 50);
  EXPECT_DOUBLE_EQ(attainable_gflops(50, 100, 1000.0), 1000);
  EXPECT_DOUBLE_EQ(attainable_gflops(50, 100, std::nullopt), 5000);
}

}  // namespace
}  // namespace kvb
