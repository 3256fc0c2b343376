// The barrier-wait counters of a timed loop: the workers' overall wait share, and for each
// worker the share of those waits that were for it (the last to arrive).
#include "benchmarks/worker_waits.h"

#include <gtest/gtest.h>

namespace kvb {
namespace {

ParallelDecode::BarrierWait waits(std::vector<ParallelDecode::WaitTicks> by_worker) {
  ParallelDecode::BarrierWait w;
  for (const auto& t : by_worker) {
    w.waiting += t.waiting;
    w.running += t.running;
  }
  w.by_worker = std::move(by_worker);
  return w;
}

TEST(WorkerWaits, CountsTheLoopsDifferencesAndNamesTheWorkerWaitedForMost) {
  // {waiting, running, held}: 800 ticks of waiting in the loop, 600 of them for worker 1.
  const auto before = waits({{100, 1000, 50}, {500, 1000, 400}, {300, 1000, 450}});
  const auto after = waits({{500, 2000, 150}, {600, 2000, 1000}, {600, 2000, 550}});
  benchmark::UserCounters counters;
  set_barrier_wait_counters(before, after, &counters);
  EXPECT_DOUBLE_EQ(counters.at("barrier_wait_pct").value, 100.0 * 800 / 3000);
  int per_worker = 0;
  for (const auto& [name, c] : counters) per_worker += is_worker_wait_counter(name);
  EXPECT_EQ(per_worker, 3);
  EXPECT_FALSE(is_worker_wait_counter("barrier_wait_pct"));
  const auto slowest = slowest_worker(counters);
  ASSERT_TRUE(slowest);
  EXPECT_EQ(slowest->worker, 1);
  EXPECT_DOUBLE_EQ(slowest->held_pct, 75.0);
}

// Worker 10 sorts before worker 2 by name: the index, not the name's order, decides a tie.
TEST(WorkerWaits, ReadsIndicesPastNineAndBreaksTiesByTheLowerIndex) {
  std::vector<ParallelDecode::WaitTicks> t(12, {10, 100, 5});
  t[10].held = 35;
  t[2].held = 35;  // 12 x 10 ticks waited: 10 x 5 + 2 x 35
  benchmark::UserCounters counters;
  set_barrier_wait_counters(waits({}), waits(t), &counters);
  const auto slowest = slowest_worker(counters);
  ASSERT_TRUE(slowest);
  EXPECT_EQ(slowest->worker, 2);
  EXPECT_DOUBLE_EQ(slowest->held_pct, 100.0 * 35 / 120);
}

// No timed run in between (one worker, an append): no counters. Timed, but nobody waited:
// the overall share only, and no worker is named.
TEST(WorkerWaits, NamesNobodyWithoutWaits) {
  const auto w = waits({{5, 10, 1}, {1, 10, 5}});
  benchmark::UserCounters counters;
  set_barrier_wait_counters(w, w, &counters);
  EXPECT_TRUE(counters.empty());
  set_barrier_wait_counters(w, waits({{5, 20, 1}, {1, 20, 5}}), &counters);
  EXPECT_DOUBLE_EQ(counters.at("barrier_wait_pct").value, 0.0);
  EXPECT_EQ(counters.size(), 1u);
  EXPECT_FALSE(slowest_worker(counters));
  counters["barrier_held_pct:wx"] = 1.0;  // not a worker's index: ignored
  EXPECT_FALSE(slowest_worker(counters));
}

}  // namespace
}  // namespace kvb
