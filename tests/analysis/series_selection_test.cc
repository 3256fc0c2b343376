#include "analysis/series_selection.h"

#include <gtest/gtest.h>
#include <string>
#include <vector>

#include "tests/analysis/summary_rows.h"

namespace kvb {
namespace {

using testing::decode_row;

double gbps_of(const ResultRow* r) { return *attained_gbps(*r); }

using Names = std::vector<std::string>;

// Panel titles and series labels in order, so one assertion checks count and order together.
Names titles(const std::vector<SeriesPanel>& panels) {
  Names out;
  for (const SeriesPanel& p : panels) out.push_back(p.title);
  return out;
}

Names labels(const SeriesPanel& panel) {
  Names out;
  for (const ResultSeries& s : panel.series) out.push_back(s.label);
  return out;
}

TEST(SeriesSelection, MaxThreadsIgnoresCeilingsAppendAndInvalidRows) {
  MachineResults m;
  m.summaries.push_back(decode_row("decode_step", "fp32", 4, 1024, 1e8, 50, "DRAM"));
  m.summaries.push_back(decode_row("append", "fp32", 16, 1024, 1e8, 50, "DRAM"));
  auto invalid = decode_row("decode_step", "fp32", 8, 1024, 1e8, 50, "DRAM");
  invalid.number[static_cast<std::size_t>(Col::valid)] = 0;
  m.summaries.push_back(invalid);
  m.summaries.push_back(testing::summary_row({{Col::benchmark, "ceiling_read"}, {Col::threads, "32"}}));
  EXPECT_EQ(max_decode_threads(m), 4);
}

TEST(SeriesSelection, LlcFitDrawsOneLinePerDtypeAndCacheStateAtMaxThreads) {
  MachineResults m;
  // fp32 warm: 28L has three working sets, 1L two -> the line is 28L, 1L are extra points.
  for (int ctx : {16, 256, 4096}) m.summaries.push_back(decode_row("decode_step", "fp32", 16, ctx, ctx * 1e4, 100, "L3"));
  for (int ctx : {16, 4096}) m.summaries.push_back(decode_row("decode_step", "fp32", 16, ctx, ctx * 1e3, 40, "L2", "warm", 1));
  m.summaries.push_back(decode_row("decode_step", "fp32", 16, 16, 16e4, 5, "L3", "cold"));
  m.summaries.push_back(decode_row("decode_step", "int8", 16, 16, 16e4, 90, "L3"));
  m.summaries.push_back(decode_row("attention", "fp32", 16, 16, 16e4, 90, "L3"));
  // Left out: fewer threads, append, a sliding window.
  m.summaries.push_back(decode_row("decode_step", "bf16", 1, 16, 16e4, 90, "L3"));
  m.summaries.push_back(decode_row("append", "fp32", 16, 16, 16e4, 90, "L3"));
  auto windowed = decode_row("decode_step", "fp16", 16, 16, 16e4, 90, "L3");
  windowed.text[static_cast<std::size_t>(Col::window)] = "64";
  m.summaries.push_back(windowed);

  const auto panels = llc_fit_panels(m, max_decode_threads(m));
  ASSERT_EQ(titles(panels), Names({"decode_step", "attention"}));
  ASSERT_EQ(labels(panels[0]),
            Names({"fp32 warm (28L 16q/8kv d128)", "fp32 cold (28L 16q/8kv d128)", "int8 warm (28L 16q/8kv d128)"}));
  ASSERT_EQ(panels[0].series[0].rows.size(), 3u);
  EXPECT_EQ(panels[0].series[0].rows[0]->num(Col::context), 16);
  EXPECT_EQ(panels[0].series[0].rows[2]->num(Col::context), 4096);
  ASSERT_EQ(panels[0].other_shapes.size(), 3u);
  EXPECT_EQ(panels[0].other_shapes[0].size(), 2u);
  EXPECT_TRUE(panels[0].other_shapes[1].empty());
}

TEST(SeriesSelection, RowsSharingAWorkingSetAreRepresentedByTheMedian) {
  MachineResults m;
  m.summaries.push_back(decode_row("decode_step", "fp32", 2, 1024, 1e8, 10, "DRAM", "warm", 28, 8, "run-a"));
  m.summaries.push_back(decode_row("decode_step", "fp32", 2, 1024, 1e8, 30, "DRAM", "warm", 28, 8, "run-b"));
  m.summaries.push_back(decode_row("decode_step", "fp32", 2, 1024, 1e8, 20, "DRAM", "warm", 28, 8, "run-c"));
  const auto panels = llc_fit_panels(m, 2);
  ASSERT_EQ(panels.size(), 1u);
  ASSERT_EQ(panels[0].series.size(), 1u);
  ASSERT_EQ(panels[0].series[0].rows.size(), 1u);
  EXPECT_NEAR(gbps_of(panels[0].series[0].rows[0]), 20, 1e-9);
}

TEST(SeriesSelection, ContextPanelsPerDtypeWithOneLinePerShapeAndCacheState) {
  MachineResults m;
  for (int ctx : {1024, 4096}) {
    m.summaries.push_back(decode_row("decode_step", "fp32", 8, ctx, ctx * 1e5, 80, "DRAM"));
    m.summaries.push_back(decode_row("decode_step", "fp32", 8, ctx, ctx * 4e5, 70, "DRAM", "warm", 32, 32));
    m.summaries.push_back(decode_row("decode_step", "fp32", 8, ctx, ctx * 1e5, 60, "DRAM", "cold"));
    m.summaries.push_back(decode_row("decode_step", "bf16", 8, ctx, ctx * 5e4, 60, "DRAM"));
    m.summaries.push_back(decode_row("decode_step", "bf16", 4, ctx, ctx * 5e4, 30, "DRAM"));  // not max threads
  }
  const auto panels = context_panels(m, 8);
  ASSERT_EQ(titles(panels), Names({"fp32", "bf16"}));
  ASSERT_EQ(labels(panels[0]), Names({"28L 16q/8kv d128 warm", "28L 16q/8kv d128 cold", "32L 16q/32kv d128 warm"}));
  ASSERT_EQ(panels[1].series.size(), 1u);
  EXPECT_EQ(panels[1].series[0].rows.size(), 2u);
  for (const ResultRow* r : panels[1].series[0].rows) EXPECT_EQ(r->num(Col::threads), 8);
}

TEST(SeriesSelection, PanelsOverTheLimitAreSplit) {
  MachineResults m;
  for (int kv = 1; kv <= 5; ++kv) {
    m.summaries.push_back(decode_row("decode_step", "fp32", 1, 64, 1e6 * kv, 10, "L3", "warm", 28, kv));
  }
  const auto panels = context_panels(m, 1, 2);
  ASSERT_EQ(panels.size(), 3u);
  EXPECT_EQ(panels[0].title, "fp32 (1/3)");
  EXPECT_EQ(panels[2].title, "fp32 (3/3)");
  EXPECT_EQ(panels[0].series.size(), 2u);
  EXPECT_EQ(panels[2].series.size(), 1u);
}

TEST(SeriesSelection, ThreadScalingUsesTheLargestContextRunAtSeveralThreadCounts) {
  MachineResults m;
  for (int t : {1, 2, 4}) {
    m.summaries.push_back(decode_row("decode_step", "fp32", t, 2048, 1e9, 10.0 * t, "DRAM"));
    m.summaries.push_back(decode_row("decode_step", "fp32", t, 2048, 4e9, 9.0 * t, "DRAM", "warm", 32, 32));
  }
  // Largest context, but at one thread count only: cannot show scaling.
  m.summaries.push_back(decode_row("decode_step", "fp32", 4, 65536, 3e10, 40, "DRAM"));
  // Other dtype; append rows never count.
  for (int t : {1, 4}) m.summaries.push_back(decode_row("decode_step", "int8", t, 512, 1e8, 5.0 * t, "L3"));
  for (int t : {1, 4}) m.summaries.push_back(decode_row("append", "fp16", t, 512, 1e8, 5.0 * t, "L3"));
  const auto series = thread_series(m);
  ASSERT_EQ(series.size(), 2u);
  EXPECT_EQ(series[0].label, "fp32 32L 16q/32kv d128 ctx 2048");  // ties on context: larger working set
  ASSERT_EQ(series[0].rows.size(), 3u);
  EXPECT_EQ(series[0].rows[0]->num(Col::threads), 1);
  EXPECT_EQ(series[0].rows[2]->num(Col::threads), 4);
  EXPECT_EQ(series[1].label, "int8 28L 16q/8kv d128 ctx 512");
}

}  // namespace
}  // namespace kvb
