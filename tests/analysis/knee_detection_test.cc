#include "analysis/knee_detection.h"

#include <gtest/gtest.h>

#include <cmath>
#include <random>

namespace kvb {
namespace {

const std::vector<CacheLevel> kCaches = {{"L1d", 48 * 1024.0}, {"L2", 1024 * 1024.0}, {"LLC", 32 * 1024 * 1024.0}};

// Plateaus 200 / 100 / 40 GB/s below L2, below LLC and beyond, with 3% noise (fixed seed).
std::vector<SeriesPoint> plateaus(double step) {
  std::mt19937 rng(42);
  std::normal_distribution<double> noise(1.0, 0.03);
  std::vector<SeriesPoint> points;
  for (double ws = 64 * 1024.0; ws <= 1024 * 1024 * 1024.0; ws *= step) {
    const double plateau = ws <= kCaches[1].bytes ? 200 : ws <= kCaches[2].bytes ? 100 : 40;
    points.push_back({ws, plateau * noise(rng)});
  }
  return points;
}

TEST(FindKnees, FindsEachPlateauEdgeWithinOneStep) {
  for (double step : {2.0, std::sqrt(2.0)}) {
    auto points = plateaus(step);
    std::reverse(points.begin(), points.end());  // order must not matter
    const auto knees = find_knees(points, kDefaultKneeDrop, kCaches);
    ASSERT_EQ(knees.size(), 2u) << "step " << step;
    EXPECT_EQ(knees[0].nearest_cache, "L2");
    EXPECT_EQ(knees[1].nearest_cache, "LLC");
    for (int i = 0; i < 2; ++i) {
      const double cache = kCaches[i + 1].bytes;
      EXPECT_GE(knees[i].working_set_bytes, cache / step * 0.999) << "step " << step;
      EXPECT_LE(knees[i].working_set_bytes, cache * 1.001) << "step " << step;
      EXPECT_DOUBLE_EQ(knees[i].ws_over_cache, knees[i].working_set_bytes / cache);
      EXPECT_GT(knees[i].next_working_set_bytes, cache);
    }
    EXPECT_NEAR(knees[0].drop, 0.5, 0.1);
    EXPECT_NEAR(knees[1].drop, 0.6, 0.1);
  }
}

TEST(FindKnees, NoiseAloneIsNoKnee) {
  std::mt19937 rng(7);
  std::normal_distribution<double> noise(1.0, 0.03);
  std::vector<SeriesPoint> points;
  for (double ws = 1e4; ws < 1e9; ws *= 2) points.push_back({ws, 100 * noise(rng)});
  EXPECT_TRUE(find_knees(points, kDefaultKneeDrop, kCaches).empty());
}

TEST(FindKnees, ThresholdIsInclusiveAndConfigurable) {
  const std::vector<SeriesPoint> points = {{1e5, 100}, {2e5, 85}, {4e5, 80}};
  EXPECT_EQ(find_knees(points, 0.15, {}).size(), 1u);
  EXPECT_TRUE(find_knees(points, 0.16, {}).empty());
  EXPECT_EQ(find_knees(points, 0.15, {})[0].nearest_cache, "");  // no cache sizes known
}

}  // namespace
}  // namespace kvb
