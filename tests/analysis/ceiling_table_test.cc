#include "analysis/ceiling_table.h"

#include <gtest/gtest.h>

#include "tests/analysis/summary_rows.h"

namespace kvb {
namespace {

ResultRow ceiling(const std::string& bench, const std::string& level, int threads, double gbps, double ws,
                  const std::string& run = "run-1") {
  return testing::summary_row({{Col::run_id, run},
                               {Col::benchmark, bench},
                               {Col::ws_level, level},
                               {Col::threads, std::to_string(threads)},
                               {Col::aggregate, "median"},
                               {Col::ns_per_step, std::to_string(ws / gbps)},
                               {Col::bytes_read, std::to_string(static_cast<long long>(ws))},
                               {Col::bytes_written, "0"},
                               {Col::working_set_bytes, std::to_string(static_cast<long long>(ws))},
                               {Col::valid, "1"}});
}

TEST(CeilingTable, PivotsKindAndLevelAgainstThreadCounts) {
  MachineResults m;
  m.summaries.push_back(ceiling("ceiling_read", "DRAM", 16, 160, 1e9));
  m.summaries.push_back(ceiling("ceiling_write", "L1", 1, 100, 1e4));
  m.summaries.push_back(ceiling("ceiling_read", "L1", 1, 200, 1e4));
  m.summaries.push_back(ceiling("ceiling_read", "L1", 1, 250, 2e4));  // best of the level's buffer sizes
  m.summaries.push_back(ceiling("ceiling_read", "DRAM", 1, 15, 1e9));
  m.summaries.push_back(testing::decode_row("decode_step", "fp32", 4, 64, 1e6, 10, "L3"));  // not a ceiling
  m.fma_peak_gflops[16] = 1800;
  m.summaries.push_back(testing::summary_row({{Col::benchmark, "ceiling_fma"}, {Col::threads, "16"}}));

  const CeilingPivot p = pivot_ceilings(m);
  ASSERT_EQ(p.threads, (std::vector<int>{1, 16}));
  ASSERT_EQ(p.rows.size(), 4u);
  EXPECT_EQ(p.rows[0].benchmark, "ceiling_read");
  EXPECT_EQ(p.rows[0].level, "L1");
  EXPECT_NEAR(*p.rows[0].values[0], 250, 1e-6);
  EXPECT_FALSE(p.rows[0].values[1].has_value());
  EXPECT_EQ(p.rows[1].level, "DRAM");
  EXPECT_NEAR(*p.rows[1].values[0], 15, 1e-6);
  EXPECT_NEAR(*p.rows[1].values[1], 160, 1e-6);
  EXPECT_EQ(p.rows[2].benchmark, "ceiling_write");
  EXPECT_EQ(p.rows[3].benchmark, "ceiling_fma");
  EXPECT_EQ(p.rows[3].level, "");
  EXPECT_NEAR(*p.rows[3].values[1], 1800, 1e-9);
}

TEST(CeilingTable, KeepsTheLowestRunsBestBesideTheBest) {
  MachineResults m;
  m.summaries.push_back(ceiling("ceiling_read", "DRAM", 16, 100, 1e9, "run-a"));
  m.summaries.push_back(ceiling("ceiling_read", "DRAM", 16, 120, 2e9, "run-a"));  // run-a's best: 120
  m.summaries.push_back(ceiling("ceiling_read", "DRAM", 16, 170, 1e9, "run-b"));
  m.summaries.push_back(ceiling("ceiling_read", "DRAM", 1, 15, 1e9, "run-a"));
  const CeilingPivot p = pivot_ceilings(m);
  ASSERT_EQ(p.rows.size(), 1u);
  EXPECT_NEAR(*p.rows[0].values[1], 170, 1e-6);
  EXPECT_NEAR(*p.rows[0].lowest_run[1], 120, 1e-6);
  EXPECT_EQ(p.rows[0].runs[1], 2);
  EXPECT_NEAR(*p.rows[0].lowest_run[0], 15, 1e-6);
  EXPECT_EQ(p.rows[0].runs[0], 1);
}

// Rows since 2026-12-06d say what each of the read ceiling's loops read; the split counts the rows
// each loop beside the plain one set (read more than every other), per thread count and level,
// and leaves out rows that timed the plain loop alone.
TEST(CeilingTable, ReadLoopSplitCountsTheRowsEachLoopSet) {
  MachineResults m;
  auto read = [](const std::string& level, int threads, const std::string& plain, const std::string& window,
                 const std::string& two_streams = "", const std::string& four_streams = "") {
    ResultRow r = ceiling("ceiling_read", level, threads, 50, 1e9);
    testing::set(r, Col::read_plain_gbps, plain);
    testing::set(r, Col::read_window_gbps, window);
    testing::set(r, Col::read_two_streams_gbps, two_streams);
    testing::set(r, Col::read_four_streams_gbps, four_streams);
    return r;
  };
  m.summaries.push_back(read("DRAM", 2, "27", "37.8"));
  m.summaries.push_back(read("DRAM", 2, "30", "36"));
  m.summaries.push_back(read("L3", 1, "50", "45"));
  m.summaries.push_back(read("L1", 1, "200", "180"));
  m.summaries.push_back(read("DRAM", 1, "15", ""));                 // an older row: one loop
  m.summaries.push_back(ceiling("ceiling_copy", "DRAM", 2, 40, 1e9));  // not a read
  ReadLoopSplit split = read_loop_split(m);
  EXPECT_EQ(split.rows, 4);
  EXPECT_EQ(split.window.rows, 4);
  ASSERT_EQ(split.window.won.size(), 1u);
  EXPECT_EQ(split.window.won.at({2, "DRAM"}), 2);
  ASSERT_EQ(split.window.over_plain.size(), 4u);
  EXPECT_NEAR(split.window.over_plain[0], 1.4, 1e-12);
  EXPECT_NEAR(split.window.over_plain[2], 0.9, 1e-12);
  EXPECT_EQ(split.two_streams.rows, 0);
  // Since 2026-12-06e rows time two streams too: the fastest of the three sets the row, and two
  // streams alone beside the plain loop (kernels that prefetch nothing) count as well.
  m.summaries.push_back(read("DRAM", 1, "20", "18", "23"));
  m.summaries.push_back(read("DRAM", 4, "60", "66", "63"));
  m.summaries.push_back(read("L2", 4, "90", "", "80"));
  split = read_loop_split(m);
  EXPECT_EQ(split.rows, 7);
  EXPECT_EQ(split.window.rows, 6);
  EXPECT_EQ(split.window.won.size(), 2u);
  EXPECT_EQ(split.window.won.at({4, "DRAM"}), 1);
  EXPECT_EQ(split.two_streams.rows, 3);
  ASSERT_EQ(split.two_streams.won.size(), 1u);
  EXPECT_EQ(split.two_streams.won.at({1, "DRAM"}), 1);
  ASSERT_EQ(split.two_streams.over_plain.size(), 3u);
  EXPECT_NEAR(split.two_streams.over_plain[0], 1.15, 1e-12);
  EXPECT_EQ(split.four_streams.rows, 0);
  // Since 2026-12-06g four streams as well: a row four streams set is no longer two streams'.
  m.summaries.push_back(read("DRAM", 1, "20", "18", "23", "26"));
  m.summaries.push_back(read("L3", 1, "30", "29", "28", "27"));
  split = read_loop_split(m);
  EXPECT_EQ(split.rows, 9);
  EXPECT_EQ(split.two_streams.rows, 5);
  EXPECT_EQ(split.two_streams.won.at({1, "DRAM"}), 1);
  EXPECT_EQ(split.four_streams.rows, 2);
  ASSERT_EQ(split.four_streams.won.size(), 1u);
  EXPECT_EQ(split.four_streams.won.at({1, "DRAM"}), 1);
  ASSERT_EQ(split.four_streams.over_plain.size(), 2u);
  EXPECT_NEAR(split.four_streams.over_plain[0], 1.3, 1e-12);
  EXPECT_NEAR(split.four_streams.over_plain[1], 0.9, 1e-12);
  EXPECT_EQ(read_loop_split(MachineResults{}).rows, 0);
}

}  // namespace
}  // namespace kvb
