#include "analysis/headline.h"

#include <gtest/gtest.h>

#include "tests/analysis/summary_rows.h"

namespace kvb {
namespace {

using testing::decode_row;
using testing::set;

ResultRow peer(const std::string& dtype, int threads, int context, double ws, double gbps) {
  ResultRow r = decode_row("peer_torch", dtype, threads, context, ws, gbps, "DRAM", "warm", 28, 8, "run-peer");
  return r;
}

TEST(Headline, PicksTheLargestDramAndLlcRowsAndMatchesPeers) {
  MachineResults m;
  m.read_roof_gbps[{"DRAM", 1}] = 20;
  m.read_roof_gbps[{"DRAM", 16}] = 160;
  m.read_roof_gbps[{"L3", 16}] = 400;
  m.summaries.push_back(decode_row("decode_step", "fp32", 1, 16384, 4e9, 15, "DRAM"));
  m.summaries.push_back(decode_row("decode_step", "fp32", 16, 4096, 1e9, 100, "DRAM"));
  m.summaries.push_back(decode_row("decode_step", "fp32", 16, 16384, 4e9, 120, "DRAM"));
  m.summaries.push_back(decode_row("decode_step", "fp32", 16, 16384, 4e9, 60, "DRAM", "cold"));
  m.summaries.push_back(decode_row("decode_step", "fp32", 16, 256, 6e7, 300, "L3"));
  m.summaries.push_back(decode_row("decode_step", "fp32", 16, 1024, 2.4e8, 200, "L3"));
  m.summaries.push_back(decode_row("append", "fp32", 16, 16384, 8e9, 150, "DRAM"));  // never a headline row
  m.summaries.push_back(decode_row("decode_step", "bf16", 16, 16384, 2e9, 80, "DRAM"));
  m.summaries.push_back(peer("fp32", 16, 4096, 1e9, 50));    // kvbench has this shape: 2x
  m.summaries.push_back(peer("fp32", 1, 4096, 1e9, 10));     // kvbench ran no 1-thread 4096
  m.summaries.push_back(peer("bf16", 16, 16384, 2e9, 40));   // 2x

  const Headline h = build_headline(m);
  EXPECT_EQ(h.max_threads, 16);
  ASSERT_EQ(h.rows.size(), 2u);
  const HeadlineRow& fp32 = h.rows[0];
  EXPECT_EQ(fp32.dtype, "fp32");
  ASSERT_NE(fp32.dram_one_thread.row, nullptr);
  EXPECT_NEAR(*fp32.dram_one_thread.gbps, 15, 1e-6);
  EXPECT_NEAR(*fp32.dram_one_thread.pct_of_ceiling, 75, 1e-6);
  EXPECT_NEAR(*fp32.dram_max_threads.gbps, 120, 1e-6);  // largest working set, warm over cold
  EXPECT_NEAR(*fp32.dram_max_threads.pct_of_ceiling, 75, 1e-6);
  EXPECT_NEAR(*fp32.llc_max_threads.gbps, 200, 1e-6);   // largest LLC-resident working set
  EXPECT_NEAR(*fp32.llc_max_threads.pct_of_ceiling, 50, 1e-6);
  ASSERT_EQ(fp32.peers.size(), 2u);
  EXPECT_NEAR(*fp32.peers[0].valid_speed(), 2, 1e-6);
  EXPECT_EQ(fp32.peers[0].ours->num(Col::context), 4096);
  EXPECT_EQ(fp32.peers[1].ours, nullptr);
  EXPECT_FALSE(fp32.peers[1].valid_speed().has_value());

  const HeadlineRow& bf16 = h.rows[1];
  EXPECT_EQ(bf16.dram_one_thread.row, nullptr);  // not run: said so, not guessed
  EXPECT_EQ(bf16.llc_max_threads.row, nullptr);
  EXPECT_NEAR(*bf16.dram_max_threads.pct_of_ceiling, 50, 1e-6);
  ASSERT_EQ(bf16.peers.size(), 1u);
  EXPECT_NEAR(*bf16.peers[0].valid_speed(), 2, 1e-6);
}

// A peer whose output failed its accuracy check (PyTorch 1.13's bf16 on an AVX2 EPYC: 0.16 off
// the double reference) is matched but given no speed: a ratio to a wrong answer compares nothing.
TEST(Headline, APeerThatFailedValidationGetsNoSpeed) {
  MachineResults m;
  m.summaries.push_back(decode_row("decode_step", "bf16", 2, 4096, 1e9, 20, "DRAM"));
  ResultRow wrong = peer("bf16", 2, 4096, 1e9, 2);
  wrong.number[static_cast<std::size_t>(Col::valid)] = 0;
  m.summaries.push_back(wrong);
  m.summaries.push_back(peer("bf16", 2, 4096, 1e9, 10));  // the same shape, valid: 2x
  const Headline h = build_headline(m);
  ASSERT_EQ(h.rows.size(), 1u);
  ASSERT_EQ(h.rows[0].peers.size(), 2u);
  EXPECT_NE(h.rows[0].peers[0].ours, nullptr);
  EXPECT_FALSE(h.rows[0].peers[0].valid_speed().has_value());
  ASSERT_TRUE(h.rows[0].peers[1].valid_speed().has_value());
  EXPECT_NEAR(*h.rows[0].peers[1].valid_speed(), 2, 1e-6);
}

TEST(Headline, PrefersStreamingGroupsOverLargerComputeBoundOnes) {
  MachineResults m;
  m.summaries.push_back(decode_row("decode_step", "fp32", 16, 1024, 2.4e8, 200, "L3"));  // 16 q / 8 kv
  m.summaries.push_back(decode_row("decode_step", "fp32", 16, 4096, 2.8e8, 20, "L3", "warm", 28, 1));  // G = 16
  m.summaries.push_back(decode_row("decode_step", "bf16", 16, 4096, 2.8e8, 15, "L3", "warm", 28, 1));  // only G = 16
  const Headline h = build_headline(m);
  ASSERT_EQ(h.rows.size(), 2u);
  EXPECT_NEAR(*h.rows[0].llc_max_threads.gbps, 200, 1e-6);
  EXPECT_NEAR(*h.rows[1].llc_max_threads.gbps, 15, 1e-6);  // nothing else run: still shown
}

// A dtype that streamed somewhere leaves a cell without a streaming row empty: a compute-bound
// group's row does not stand in for the LLC's bandwidth.
TEST(Headline, AComputeBoundGroupDoesNotFillACellWhereTheDtypeStreamedElsewhere) {
  MachineResults m;
  m.summaries.push_back(decode_row("decode_step", "fp16", 16, 9363, 1e9, 90, "DRAM"));  // 16 q / 8 kv
  m.summaries.push_back(decode_row("decode_step", "fp16", 16, 292, 3.3e7, 89, "L2"));
  m.summaries.push_back(decode_row("decode_step", "fp16", 16, 4096, 6.7e7, 13, "L3", "warm", 32, 1));  // G = 16
  const Headline h = build_headline(m);
  ASSERT_EQ(h.rows.size(), 1u);
  EXPECT_NEAR(*h.rows[0].dram_max_threads.gbps, 90, 1e-6);
  EXPECT_EQ(h.rows[0].llc_max_threads.row, nullptr);
}

// A configuration run twice (a rerun after a disturbed minute) shows the later run's row, in
// whichever order the files were given.
TEST(Headline, ARerunReplacesTheRowItRepeats) {
  for (const bool rerun_first : {false, true}) {
    MachineResults m;
    const ResultRow disturbed =
        decode_row("decode_step", "fp16", 16, 9363, 4e9, 4, "DRAM", "warm", 28, 8, "emr-20261202T020325Z");
    const ResultRow rerun =
        decode_row("decode_step", "fp16", 16, 9363, 4e9, 100, "DRAM", "warm", 28, 8, "emr-20261202T021105Z");
    m.summaries.push_back(rerun_first ? rerun : disturbed);
    m.summaries.push_back(rerun_first ? disturbed : rerun);
    const Headline h = build_headline(m);
    ASSERT_EQ(h.rows.size(), 1u);
    ASSERT_NE(h.rows[0].dram_max_threads.row, nullptr);
    EXPECT_NEAR(*h.rows[0].dram_max_threads.gbps, 100, 1e-6) << "rerun given first: " << rerun_first;
  }
}

// A reference set runs Qwen3-0.6B in several steps: the row held against its own bracketed
// ceiling stands over one held to its run's one ceiling (a run without --ceiling-bracket, as the
// default sweep was until 2026-12-06), even when later.
TEST(Headline, ABracketedRowStandsOverALaterUnbracketedOne) {
  MachineResults m;
  ResultRow bracketed =
      decode_row("decode_step", "fp32", 1, 4682, 1.2e9, 12, "DRAM", "warm", 28, 8, "emr-20261202T010000Z");
  set(bracketed, Col::ceiling_before_gbps, "14");
  m.summaries.push_back(
      decode_row("decode_step", "fp32", 1, 4682, 1.2e9, 9, "DRAM", "warm", 28, 8, "emr-20261202T020000Z"));
  m.summaries.push_back(bracketed);
  const Headline h = build_headline(m);
  ASSERT_EQ(h.rows.size(), 1u);
  ASSERT_NE(h.rows[0].dram_one_thread.row, nullptr);
  EXPECT_NEAR(*h.rows[0].dram_one_thread.gbps, 12, 1e-6);
}

TEST(Headline, NoCeilingMeansNoPercentage) {
  MachineResults m;
  m.summaries.push_back(decode_row("decode_step", "int8", 2, 8192, 2e9, 7, "DRAM"));
  const Headline h = build_headline(m);
  ASSERT_EQ(h.rows.size(), 1u);
  EXPECT_NEAR(*h.rows[0].dram_max_threads.gbps, 7, 1e-6);
  EXPECT_FALSE(h.rows[0].dram_max_threads.pct_of_ceiling.has_value());
  EXPECT_TRUE(h.rows[0].peers.empty());
}

}  // namespace
}  // namespace kvb
