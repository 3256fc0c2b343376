#include "analysis/peer_comparison.h"

#include <gtest/gtest.h>

#include "tests/analysis/summary_rows.h"

namespace kvb {
namespace {

using testing::decode_row;

ResultRow peer(int context, double gbps, const std::string& cache_state = "warm") {
  return decode_row("peer_torch", "fp16", 2, context, 1e9, gbps, "DRAM", cache_state, 28, 8, "run-peer");
}

// Every kvbench decode row of the peer's shape is listed; another cache state, another model or
// a kernel that is not decode attention is no match.
TEST(PeerComparison, ListsEveryDecodeRowOfTheSameShapeAndCacheState) {
  MachineResults m;
  m.summaries.push_back(decode_row("decode_step", "fp16", 2, 4096, 1e9, 20, "DRAM", "warm", 28, 8, "run-a"));
  m.summaries.push_back(decode_row("attention", "fp16", 2, 4096, 1e9, 40, "DRAM", "warm", 28, 8, "run-a"));
  m.summaries.push_back(decode_row("decode_step", "fp16", 2, 4096, 1e9, 30, "DRAM", "cold", 28, 8, "run-b"));
  m.summaries.push_back(decode_row("append", "fp16", 2, 4096, 1e9, 30, "DRAM", "warm", 28, 8, "run-b"));
  ResultRow other_model = decode_row("decode_step", "fp16", 2, 4096, 1e9, 50, "DRAM", "warm", 28, 8, "run-c");
  other_model.text[static_cast<std::size_t>(Col::model)] = "llama-7b";
  m.summaries.push_back(other_model);
  m.summaries.push_back(peer(4096, 10));
  m.summaries.push_back(peer(4096, 10, "cold"));
  m.summaries.push_back(peer(8192, 10));

  const std::vector<PeerComparison> all = compare_with_peers(m);
  ASSERT_EQ(all.size(), 4u);
  EXPECT_EQ(all[0].ours->str(Col::benchmark), "decode_step");
  EXPECT_NEAR(*all[0].speed, 2, 1e-6);
  EXPECT_NEAR(*all[0].gbps_ratio, 2, 1e-6);
  EXPECT_EQ(all[1].ours->str(Col::benchmark), "attention");
  EXPECT_NEAR(*all[1].speed, 4, 1e-6);
  EXPECT_EQ(all[2].peer->str(Col::cache_state), "cold");
  EXPECT_EQ(all[2].ours->str(Col::run_id), "run-b");
  EXPECT_EQ(all[3].ours, nullptr);  // kvbench ran no 8192
  EXPECT_FALSE(all[3].speed.has_value());
}

// One entry per peer: attention (what the peer times) before decode_step, then the latest run.
TEST(PeerComparison, BestMatchPrefersAttentionThenTheLatestRun) {
  MachineResults m;
  m.summaries.push_back(decode_row("decode_step", "fp16", 2, 4096, 1e9, 20, "DRAM", "warm", 28, 8, "run-c"));
  m.summaries.push_back(decode_row("attention", "fp16", 2, 4096, 1e9, 40, "DRAM", "warm", 28, 8, "run-a"));
  m.summaries.push_back(decode_row("attention", "fp16", 2, 4096, 1e9, 30, "DRAM", "warm", 28, 8, "run-b"));
  m.summaries.push_back(decode_row("decode_step", "fp16", 2, 8192, 2e9, 20, "DRAM", "warm", 28, 8, "run-a"));
  m.summaries.push_back(decode_row("decode_step", "fp16", 2, 8192, 2e9, 25, "DRAM", "warm", 28, 8, "run-b"));
  m.summaries.push_back(peer(4096, 10));
  m.summaries.push_back(peer(8192, 10));
  m.summaries.push_back(peer(16384, 10));

  const std::vector<PeerComparison> best = best_peer_matches(m);
  ASSERT_EQ(best.size(), 3u);
  EXPECT_EQ(best[0].ours->str(Col::benchmark), "attention");
  EXPECT_EQ(best[0].ours->str(Col::run_id), "run-b");
  EXPECT_NEAR(*best[0].speed, 3, 1e-6);
  EXPECT_EQ(best[1].ours->str(Col::run_id), "run-b");
  EXPECT_EQ(best[2].ours, nullptr);
}

// A peer whose output failed its accuracy check keeps its measured ratio (the efficiency targets
// fail the line on it) but shows no speed.
TEST(PeerComparison, AnInvalidPeerHasNoValidSpeed) {
  MachineResults m;
  m.summaries.push_back(decode_row("decode_step", "fp16", 2, 4096, 1e9, 20, "DRAM"));
  ResultRow wrong = peer(4096, 5);
  wrong.number[static_cast<std::size_t>(Col::valid)] = 0;
  m.summaries.push_back(wrong);
  const std::vector<PeerComparison> best = best_peer_matches(m);
  ASSERT_EQ(best.size(), 1u);
  ASSERT_TRUE(best[0].speed.has_value());
  EXPECT_NEAR(*best[0].speed, 4, 1e-6);
  EXPECT_FALSE(best[0].valid_speed().has_value());
}

}  // namespace
}  // namespace kvb
