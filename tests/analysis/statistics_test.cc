#include "analysis/statistics.h"

#include <gtest/gtest.h>

#include <cmath>
#include <vector>

namespace kvb {
namespace {

TEST(Median, OddEvenEmpty) {
  EXPECT_DOUBLE_EQ(*median({3, 1, 2}), 2);
  EXPECT_DOUBLE_EQ(*median({4, 1, 3, 2}), 2.5);
  EXPECT_FALSE(median({}).has_value());
}

TEST(MannWhitneyU, SeparatedSamplesMatchScipyAsymptotic) {
  // scipy.stats.mannwhitneyu([1..5], [6..10], method='asymptotic') -> U=0, p=0.01219...
  const auto r = mann_whitney_u({1, 2, 3, 4, 5}, {6, 7, 8, 9, 10});
  ASSERT_TRUE(r.has_value());
  EXPECT_DOUBLE_EQ(r->u, 0);
  EXPECT_NEAR(r->p_value, 0.012185, 1e-5);
}

TEST(MannWhitneyU, IsSymmetric) {
  const auto a = mann_whitney_u({1, 5, 2, 8}, {3, 9, 7, 6, 4});
  const auto b = mann_whitney_u({3, 9, 7, 6, 4}, {1, 5, 2, 8});
  ASSERT_TRUE(a && b);
  EXPECT_NEAR(a->p_value, b->p_value, 1e-12);
  EXPECT_DOUBLE_EQ(a->u + b->u, 4.0 * 5.0);
}

TEST(MannWhitneyU, TieCorrection) {
  // Hand computation: ranks of pooled {1,1,2,2 | 2,3,3,3}; U1 = 1.5+1.5+4+4 - 10 = 1;
  // tie groups t=2,3,3 -> sum(t^3-t) = 6+24+24 = 54; var = 16/12*(9 - 54/56) = 10.714...
  // z = (|1-8| - 0.5)/sqrt(var) = 1.9858 -> p = 0.04706.
  const auto r = mann_whitney_u({1, 1, 2, 2}, {2, 3, 3, 3});
  ASSERT_TRUE(r.has_value());
  EXPECT_DOUBLE_EQ(r->u, 1);
  EXPECT_NEAR(r->p_value, 0.04706, 2e-4);
}

TEST(MannWhitneyU, IdenticalSamplesAreNotSignificant) {
  const auto r = mann_whitney_u({5, 5, 5}, {5, 5, 5});
  ASSERT_TRUE(r.has_value());
  EXPECT_DOUBLE_EQ(r->p_value, 1);
}

TEST(MannWhitneyU, NeedsTwoValuesPerSide) {
  EXPECT_FALSE(mann_whitney_u({1}, {2, 3}).has_value());
}

// Student's t with 2 degrees of freedom has the closed form F(t) = 1/2 + t / (2 sqrt(2 + t^2)),
// so three rounds' two-sided p is 1 - |t| / sqrt(2 + t^2), independently of Boost.
TEST(PairedRatioPValue, ThreeRoundsMatchTheClosedFormOfTwoDegreesOfFreedom) {
  const std::vector<double> ratios = {1.10, 1.20, 1.15};
  double mean = 0;
  for (double r : ratios) mean += std::log(r) / 3;
  double ss = 0;
  for (double r : ratios) ss += (std::log(r) - mean) * (std::log(r) - mean);
  const double t = mean / std::sqrt(ss / 2 / 3);
  const auto p = paired_ratio_p_value(ratios);
  ASSERT_TRUE(p.has_value());
  EXPECT_NEAR(*p, 1 - t / std::sqrt(2 + t * t), 1e-9);
  EXPECT_LT(*p, 0.05);
  // Reciprocal ratios (the sides swapped) give the same p.
  EXPECT_NEAR(*paired_ratio_p_value({1 / 1.10, 1 / 1.20, 1 / 1.15}), *p, 1e-12);
}

TEST(PairedRatioPValue, RatiosAroundOneAreNotSignificant) {
  const auto p = paired_ratio_p_value({1.10, 0.92, 1.04, 0.97});
  ASSERT_TRUE(p.has_value());
  EXPECT_GT(*p, 0.5);
}

TEST(PairedRatioPValue, EdgeCases) {
  EXPECT_FALSE(paired_ratio_p_value({1.2}).has_value());
  EXPECT_FALSE(paired_ratio_p_value({1.2, 0.0}).has_value());
  EXPECT_FALSE(paired_ratio_p_value({1.2, std::nan("")}).has_value());
  EXPECT_DOUBLE_EQ(*paired_ratio_p_value({1.0, 1.0, 1.0}), 1.0);  // no spread, no change
  EXPECT_DOUBLE_EQ(*paired_ratio_p_value({1.1, 1.1}), 0.0);       // no spread, a change
}

// Expected values from R: p.adjust(c(0.01, 0.04, 0.03, 0.005), "holm") and the like.
TEST(HolmAdjusted, MatchesRsStepDown) {
  const auto adjusted = holm_adjusted({0.01, 0.04, 0.03, 0.005});
  ASSERT_EQ(adjusted.size(), 4u);
  EXPECT_DOUBLE_EQ(adjusted[0], 0.03);   // 2nd smallest: 3 x 0.01
  EXPECT_DOUBLE_EQ(adjusted[1], 0.06);   // largest: 1 x 0.04, raised to the 3rd's 0.06
  EXPECT_DOUBLE_EQ(adjusted[2], 0.06);   // 3rd: 2 x 0.03
  EXPECT_DOUBLE_EQ(adjusted[3], 0.02);   // smallest: 4 x 0.005
  EXPECT_EQ(holm_adjusted({0.6, 0.7}), (std::vector<double>{1.0, 1.0}));     // capped at 1
  EXPECT_EQ(holm_adjusted({0.02, 0.02}), (std::vector<double>{0.04, 0.04})); // ties
  EXPECT_EQ(holm_adjusted({0.03}), (std::vector<double>{0.03}));             // one test: as it is
  EXPECT_TRUE(holm_adjusted({}).empty());
}

}  // namespace
}  // namespace kvb
