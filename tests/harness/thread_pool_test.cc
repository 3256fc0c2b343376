#include "harness/thread_pool.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <string>
#include <thread>
#include <vector>

#include "harness/error.h"
#include "harness/topology.h"

namespace kvb {
namespace {

TEST(PinPolicy, ParsesAndPrintsEverySpelling) {
  for (const char* s : {"compact", "scatter", "none", "pus:0+2+4"})
    EXPECT_EQ(pin_policy_name(parse_pin_policy(s)), s);
  EXPECT_THROW(parse_pin_policy("spread"), HarnessError);
  EXPECT_THROW(parse_pin_policy("pus:"), HarnessError);
  EXPECT_THROW(parse_pin_policy("pus:0+"), HarnessError);
  EXPECT_THROW(parse_pin_policy("pus:a"), HarnessError);
}

TEST(ThreadPool, PinsTwoWorkersWhereAsked) {
  auto topo = Topology::discover();
  if (topo->pu_count() < 2) GTEST_SKIP() << "needs 2 PUs";
  const unsigned a = topo->pus()[0], b = topo->pus()[1];
  for (const PinPolicy& pin : {parse_pin_policy("compact"), parse_pin_policy("scatter"),
                               parse_pin_policy("pus:" + std::to_string(b) + "+" + std::to_string(a))}) {
    ThreadPool pool(*topo, 2, pin);
    ASSERT_EQ(pool.bound_pus().size(), 2u);
    EXPECT_NE(pool.bound_pus()[0], pool.bound_pus()[1]);
    // Each worker reports where it runs; it must be the PU it was bound to.
    for (int round = 0; round < 5; ++round) EXPECT_EQ(pool.where_workers_run(), pool.bound_pus()) << pin_policy_name(pin);
    EXPECT_EQ(pool.pu_list(), std::to_string(pool.bound_pus()[0]) + "+" + std::to_string(pool.bound_pus()[1]));
  }
  ThreadPool explicit_pool(*topo, 2, parse_pin_policy("pus:" + std::to_string(b) + "+" + std::to_string(a)));
  EXPECT_EQ(explicit_pool.where_workers_run(), (std::vector<unsigned>{b, a}));
}

TEST(ThreadPool, ImpossibleRequestsAreErrorsNamingTheProblem) {
  auto topo = Topology::discover();
  const int n = topo->pu_count();
  try {
    ThreadPool pool(*topo, n + 1, parse_pin_policy("compact"));
    FAIL() << "more threads than PUs accepted";
  } catch (const HarnessError& e) {
    EXPECT_NE(std::string(e.what()).find("PUs"), std::string::npos) << e.what();
  }
  EXPECT_THROW(ThreadPool(*topo, n + 1, parse_pin_policy("none")), HarnessError);
  try {
    ThreadPool pool(*topo, 1, parse_pin_policy("pus:100000"));
    FAIL() << "unknown PU accepted";
  } catch (const HarnessError& e) {
    EXPECT_NE(std::string(e.what()).find("100000"), std::string::npos) << e.what();
  }
  EXPECT_THROW(ThreadPool(*topo, 2, parse_pin_policy("pus:0")), HarnessError);  // list/threads mismatch
  if (n >= 2) {
    EXPECT_THROW(ThreadPool(*topo, 2, parse_pin_policy("pus:0+0")), HarnessError);
  }
  EXPECT_THROW(ThreadPool(*topo, 0, parse_pin_policy("compact")), HarnessError);
}

TEST(ThreadPool, BarrierSeparatesPhases) {
  auto topo = Topology::discover();
  const int T = std::min(2, topo->pu_count());
  ThreadPool pool(*topo, T, parse_pin_policy("compact"));
  std::atomic<int> counter{0};
  std::atomic<int> errors{0};
  constexpr int kPhases = 2000;
  pool.run([&](int) {
    for (int p = 0; p < kPhases; ++p) {
      counter.fetch_add(1);
      pool.barrier();
      if (counter.load() != (p + 1) * T) errors.fetch_add(1);  // everybody finished phase p
      pool.barrier();
    }
  });
  EXPECT_EQ(errors.load(), 0);
  EXPECT_EQ(counter.load(), kPhases * T);
  // Many dispatches, some after the workers went to sleep.
  for (int i = 0; i < 3; ++i) {
    std::atomic<int> ran{0};
    pool.run([&](int) { ran.fetch_add(1); });
    EXPECT_EQ(ran.load(), T);
  }
}

// Phases far longer than the spin: the per-worker epochs must still order every phase, through
// the futex sleep path and back-to-back runs (run() ends in a join the workers do not wait on).
TEST(ThreadPool, BarrierHoldsThroughSleepsAndRuns) {
  auto topo = Topology::discover();
  const int T = std::min(4, topo->pu_count());
  ThreadPool pool(*topo, T, parse_pin_policy("compact"));
  std::atomic<int> counter{0};
  std::atomic<int> errors{0};
  constexpr int kPhases = 300;
  for (int round = 0; round < 3; ++round) {
    pool.run([&](int w) {
      for (int p = 0; p < kPhases; ++p) {
        if (p % 50 == w % 50) std::this_thread::sleep_for(std::chrono::microseconds(300));
        counter.fetch_add(1);
        pool.barrier();
        if (counter.load() != (round * kPhases + p + 1) * T) errors.fetch_add(1);
        pool.barrier();
      }
    });
    EXPECT_EQ(counter.load(), (round + 1) * kPhases * T);
    std::this_thread::sleep_for(std::chrono::milliseconds(2));  // workers fall asleep between runs
  }
  EXPECT_EQ(errors.load(), 0);
}

// The stamped barrier returns the latest of the other workers' arrival stamps and whose it was,
// exactly as they passed them; a worker held back by 20 ms is the one the others waited for.
TEST(ThreadPool, StampedBarrierNamesTheLastArrival) {
  auto topo = Topology::discover();
  const int T = std::min(4, topo->pu_count());
  if (T < 2) GTEST_SKIP() << "needs two PUs";
  ThreadPool pool(*topo, T, parse_pin_policy("compact"));
  constexpr int kPhases = 6;
  std::vector<std::uint64_t> stamps(kPhases * T);
  std::vector<ThreadPool::Arrival> got(kPhases * T);
  pool.run([&](int w) {
    for (int p = 0; p < kPhases; ++p) {
      if (p % T == w) std::this_thread::sleep_for(std::chrono::milliseconds(20));
      const auto stamp = static_cast<std::uint64_t>(std::chrono::steady_clock::now().time_since_epoch().count());
      stamps[p * T + w] = stamp;
      got[p * T + w] = pool.barrier(stamp);
    }
  });
  for (int p = 0; p < kPhases; ++p) {
    for (int w = 0; w < T; ++w) {
      SCOPED_TRACE("phase " + std::to_string(p) + ", worker " + std::to_string(w));
      const ThreadPool::Arrival a = got[p * T + w];
      int latest = -1;
      std::uint64_t latest_stamp = stamps[p * T + w];
      for (int j = 0; j < T; ++j) {
        if (j != w && stamps[p * T + j] > latest_stamp) {
          latest = j;
          latest_stamp = stamps[p * T + j];
        }
      }
      EXPECT_EQ(a.worker, latest);
      EXPECT_EQ(a.stamp, latest_stamp);
      if (w != p % T) EXPECT_EQ(a.worker, p % T);  // the one held back
    }
  }
}

TEST(ThreadPool, EmptyDispatchCostIsMeasured) {
  auto topo = Topology::discover();
  ThreadPool pool(*topo, std::min(2, topo->pu_count()), parse_pin_policy("compact"));
  const double ns = pool.empty_dispatch_ns(2000);
  EXPECT_GT(ns, 0.0);
  EXPECT_LT(ns, 1e6);  // a dispatch taking a millisecond means the spin/wake logic is broken
}

}  // namespace
}  // namespace kvb
