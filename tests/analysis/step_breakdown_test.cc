#include "analysis/step_breakdown.h"

#include <gtest/gtest.h>

#include <string>

#include "tests/analysis/summary_rows.h"

namespace kvb {
namespace {

using testing::decode_row;
using testing::set;

// A 2-thread LLC row of 28 layers: 1 MB at 25 GB/s is a 40000 ns step, 25% of a 100 GB/s ceiling
// (10000 ns of bytes at the ceiling); 28 crossings of 250 ns are 7000 ns; its workers waited 30%
// (12000 ns); the rest is 11000 ns, 392.9 ns a layer. At one thread nobody waits; a row of a run
// without a crossing, a DRAM row, and a row of G = 4 are left out.
TEST(StepBreakdown, SplitsAStepIntoBytesCrossingsWaitsAndTheRest) {
  MachineResults m;
  m.l3_bytes = m.llc_bytes = 32.0 * 1024 * 1024;
  ResultRow two = decode_row("decode_step", "fp32", 2, 1024, 1e6, 25, "L3");
  set(two, Col::ceiling_gbps, "100");
  set(two, Col::barrier_wait_pct, "30");
  ResultRow one = decode_row("attention", "int8", 1, 1024, 1e6, 50, "L3");
  set(one, Col::ceiling_gbps, "100");
  ResultRow unknown_wait = decode_row("decode_step", "bf16", 2, 1024, 1e6, 50, "L3");
  set(unknown_wait, Col::ceiling_gbps, "100");
  ResultRow other_run = decode_row("decode_step", "fp16", 2, 1024, 1e6, 50, "L3", "warm", 28, 8, "run-b");
  set(other_run, Col::ceiling_gbps, "100");
  ResultRow dram = decode_row("decode_step", "fp32", 2, 16384, 4e9, 50, "DRAM");
  set(dram, Col::ceiling_gbps, "100");
  ResultRow grouped = decode_row("attention", "fp32", 2, 1024, 1e6, 50, "L3");
  set(grouped, Col::q_heads, "32");  // 32 q / 8 kv
  set(grouped, Col::ceiling_gbps, "100");
  m.summaries = {two, one, unknown_wait, other_run, dram, grouped, testing::barrier_crossing_row(2, 250),
                 testing::barrier_crossing_row(2, 400), testing::barrier_crossing_row(1, 10)};

  const std::vector<StepBreakdown> b = break_down_llc_steps(m);
  ASSERT_EQ(b.size(), 3u);
  EXPECT_EQ(b[0].row->str(Col::dtype), "fp32");
  EXPECT_NEAR(b[0].step_ns, 40000, 1e-6);
  EXPECT_NEAR(b[0].streaming_ns, 10000, 1e-6);
  EXPECT_NEAR(b[0].crossings_ns, 7000, 1e-6);  // the run's least crossing
  ASSERT_TRUE(b[0].waiting_ns.has_value());
  EXPECT_NEAR(*b[0].waiting_ns, 12000, 1e-6);
  EXPECT_NEAR(b[0].rest_ns, 11000, 1e-6);

  EXPECT_EQ(b[1].row->str(Col::dtype), "int8");
  EXPECT_NEAR(b[1].crossings_ns, 280, 1e-6);
  ASSERT_TRUE(b[1].waiting_ns.has_value());
  EXPECT_EQ(*b[1].waiting_ns, 0.0);
  EXPECT_NEAR(b[1].rest_ns, 20000 - 10000 - 280, 1e-6);

  EXPECT_EQ(b[2].row->str(Col::dtype), "bf16");  // two workers, no barrier_wait_pct: unknown, not 0
  EXPECT_FALSE(b[2].waiting_ns.has_value());
  EXPECT_NEAR(b[2].rest_ns, 20000 - 10000 - 7000, 1e-6);
}

}  // namespace
}  // namespace kvb
