#include "analysis/peer_comparison.h"

#include <gtest/gtest.h>

#include "tests/analysis/summary_rows.h"

namespace kvb {
namespace {

using testing::decode_row;

ResultRow peer(int context, double gbps, const std::string& cache_state = "warm") {
  return decode_row("peer_torch", "fp16", 2, context, 1e9, gbps, "DRAM", cache_state, 28, 8, "run-peer");
}

// A kvbench fp16 row at 2 threads of the peers' shape (1 GB per step at 4096 positions).
ResultRow ours(const std::string& benchmark, int context, double gbps, const std::string& run_id,
               const std::string& cache_state = "warm") {
  return decode_row(benchmark, "fp16", 2, context, 1e9 * context / 4096, gbps, "DRAM", cache_state, 28, 8, run_id);
}

// Every kvbench decode row of the peer's shape is listed; another cache state, another model or
// a kernel that is not decode attention is no match.
TEST(PeerComparison, ListsEveryDecodeRowOfTheSameShapeAndCacheState) {
  MachineResults m;
  m.summaries.push_back(ours("decode_step", 4096, 20, "run-a"));
  m.summaries.push_back(ours("attention", 4096, 40, "run-a"));
  m.summaries.push_back(ours("decode_step", 4096, 30, "run-b", "cold"));
  m.summaries.push_back(ours("append", 4096, 30, "run-b"));
  ResultRow other_model = ours("decode_step", 4096, 50, "run-c");
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
  m.summaries.push_back(ours("decode_step", 4096, 20, "run-c"));
  m.summaries.push_back(ours("attention", 4096, 40, "run-a"));
  m.summaries.push_back(ours("attention", 4096, 30, "run-b"));
  m.summaries.push_back(ours("decode_step", 8192, 20, "run-a"));
  m.summaries.push_back(ours("decode_step", 8192, 25, "run-b"));
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
  m.summaries.push_back(ours("decode_step", 4096, 20, "run-a"));
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
