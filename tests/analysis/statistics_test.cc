#include "analysis/statistics.h"

#include <gtest/gtest.h>

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

}  // namespace
}  // namespace kvb
