#include "harness/chunk_claims.h"

#include <gtest/gtest.h>

#include <atomic>
#include <thread>
#include <vector>

#include "harness/error.h"

namespace kvb {
namespace {

TEST(ChunkClaims, EvenBlocksCoverEveryChunkOnce) {
  const ChunkClaims c = ChunkClaims::even(10, 3);
  EXPECT_EQ(c.workers(), 3);
  EXPECT_EQ(c.chunks(), 10);
  EXPECT_EQ(c.block_begin(0), 0);
  EXPECT_EQ(c.block_begin(1), 3);
  EXPECT_EQ(c.block_begin(2), 6);
  EXPECT_EQ(c.block_begin(3), 10);
  EXPECT_THROW(ChunkClaims::even(4, 0), HarnessError);
  EXPECT_THROW(ChunkClaims(std::vector<std::int64_t>{1, 3}), HarnessError);
  EXPECT_THROW(ChunkClaims(std::vector<std::int64_t>{0, 3, 2}), HarnessError);
}

// One worker alone takes its own block in order, then the others' from the next worker on.
TEST(ChunkClaims, OwnBlockFirstThenTheNextWorkersInTurn) {
  ChunkClaims c = ChunkClaims::even(9, 3);
  std::vector<std::int64_t> order;
  c.claim(1, [&](std::int64_t k) { order.push_back(k); });
  EXPECT_EQ(order, (std::vector<std::int64_t>{3, 4, 5, 6, 7, 8, 0, 1, 2}));
  order.clear();
  c.claim(0, [&](std::int64_t k) { order.push_back(k); });
  EXPECT_TRUE(order.empty()) << "every chunk was claimed already";
  c.reset(2);
  c.claim(0, [&](std::int64_t k) { order.push_back(k); });
  EXPECT_EQ(order, (std::vector<std::int64_t>{6, 7, 8}));
  c.reset_all();
  order.clear();
  c.claim(2, [&](std::int64_t k) { order.push_back(k); });
  EXPECT_EQ(order.size(), 9u);
}

// Concurrent workers: each chunk exactly once; a worker that starts late finds its block taken.
TEST(ChunkClaims, ConcurrentWorkersClaimEachChunkExactlyOnce) {
  constexpr int kWorkers = 4;
  constexpr std::int64_t kChunks = 20000;
  ChunkClaims c = ChunkClaims::even(kChunks, kWorkers);
  std::vector<std::atomic<int>> seen(kChunks);
  std::vector<std::int64_t> mine(kWorkers, 0);
  std::atomic<bool> others_done{false};
  std::vector<std::thread> threads;
  for (int w = 0; w < kWorkers; ++w) {
    threads.emplace_back([&, w] {
      if (w == kWorkers - 1)
        while (!others_done.load()) std::this_thread::yield();  // the slowed-down worker
      c.claim(w, [&](std::int64_t k) {
        seen[static_cast<std::size_t>(k)].fetch_add(1);
        ++mine[static_cast<std::size_t>(w)];
      });
    });
  }
  for (int w = 0; w < kWorkers - 1; ++w) threads[static_cast<std::size_t>(w)].join();
  others_done.store(true);
  threads.back().join();
  for (std::int64_t k = 0; k < kChunks; ++k) ASSERT_EQ(seen[static_cast<std::size_t>(k)].load(), 1) << k;
  EXPECT_EQ(mine[kWorkers - 1], 0) << "the late worker's block was left to it";
  std::int64_t total = 0;
  for (std::int64_t n : mine) total += n;
  EXPECT_EQ(total, kChunks);
}

}  // namespace
}  // namespace kvb
