#include "harness/ceilings.h"

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

#include "harness/ceiling_kernels.h"
#include "harness/error.h"
#include "harness/thread_pool.h"
#include "harness/topology.h"
#include "kernels/sw_prefetch.h"
#include "tests/harness/synthetic_topology.h"

namespace kvb {
namespace {

TEST(CeilingKernels, ComputeWhatTheySay) {
  std::vector<float> a(1000 + 3), b(a.size());
  for (std::size_t i = 0; i < a.size(); ++i) a[i] = static_cast<float>(i % 5);
  double want = 0;
  for (float x : a) want += x;
  EXPECT_FLOAT_EQ(ceiling_read(a.data(), static_cast<std::int64_t>(a.size())), static_cast<float>(want));
  ceiling_copy(a.data(), b.data(), static_cast<std::int64_t>(a.size()));
  EXPECT_EQ(a, b);
  ceiling_write(b.data(), static_cast<std::int64_t>(b.size()), 3.0f);
  for (float x : b) ASSERT_EQ(x, 3.0f);
  alignas(64) static float nt[4096 + 7];
  ceiling_write_nt(nt, 4096 + 7, 5.0f);
  for (float x : nt) ASSERT_EQ(x, 5.0f);
  float sink = 0;
  EXPECT_GT(ceiling_fma(10, &sink), 0);
  EXPECT_GT(ceiling_block_floats(), 0);
  EXPECT_NE(std::string(ceiling_target_name()), "");
}

// The read-under-FMA stream against a double model of what it defines: the elements' sum plus
// eight chains per lane, vector k of each block stepping chains k..k+fmas-1 (chain * 0.5 + v).
TEST(CeilingKernels, ReadUnderFmaMatchesItsDoubleModel) {
  const std::int64_t block = ceiling_block_floats(), lanes = block / 8;
  const std::int64_t n = 3 * block + 5;  // three blocks and a scalar tail
  std::vector<float> a(static_cast<std::size_t>(n));
  for (std::size_t i = 0; i < a.size(); ++i) a[i] = static_cast<float>((i * 37) % 11) * 0.25f;
  for (int fmas : ceiling_read_fma_counts) {
    std::vector<double> chain(static_cast<std::size_t>(8 * lanes), 0.0);
    double want = 0;
    for (float x : a) want += x;
    for (std::int64_t i = 0; i + block <= n; i += block)
      for (int k = 0; k < 8; ++k)
        for (int f = 0; f < fmas; ++f)
          for (std::int64_t l = 0; l < lanes; ++l) {
            double& c = chain[static_cast<std::size_t>(((k + f) & 7) * lanes + l)];
            c = c * 0.5 + a[static_cast<std::size_t>(i + k * lanes + l)];
          }
    for (double c : chain) want += c;
    for (std::int64_t ahead : {std::int64_t{0}, std::int64_t{4096}})
      EXPECT_NEAR(ceiling_read_fma(a.data(), n, fmas, ahead), want, 1e-5 * want)
          << fmas << " FMAs per vector, prefetch " << ahead << " bytes ahead";
  }
  EXPECT_THROW(ceiling_read_fma(a.data(), n, 3, 0), HarnessError);
}

// Every stream's floats are summed once, tails included, with and without the window; a count
// that was not compiled is refused.
TEST(CeilingKernels, ReadStreamsSumsEveryStream) {
  const std::int64_t block = ceiling_block_floats();
  const std::int64_t n = 3 * block + 5, stride = n + 7;  // three blocks and a tail per stream, a gap between
  std::vector<float> a(static_cast<std::size_t>(4 * stride));
  for (std::size_t i = 0; i < a.size(); ++i) a[i] = static_cast<float>((i * 37) % 11) * 0.25f;
  for (int streams : ceiling_read_stream_counts) {
    double want = 0;
    for (int s = 0; s < streams; ++s)
      for (std::int64_t i = 0; i < n; ++i) want += a[static_cast<std::size_t>(s * stride + i)];
    for (std::int64_t ahead : {std::int64_t{0}, std::int64_t{4096}})
      for (bool t2 : {false, true})
        EXPECT_NEAR(ceiling_read_streams(a.data(), stride, streams, n, ahead, t2), want, 1e-5 * want)
            << streams << " streams, prefetch " << ahead << " bytes ahead, t2 " << t2;
  }
  EXPECT_THROW(ceiling_read_streams(a.data(), stride, 3, n, 0), HarnessError);
}

TEST(Ceilings, WorkingSetsComeFromHwlocAndGrow) {
  auto topo = Topology::discover();
  const std::vector<WorkingSet> ws = ceiling_working_sets(*topo, {topo->pus()[0]}, 1);
  ASSERT_GE(ws.size(), 2u);
  EXPECT_EQ(ws.front().level, "L1");
  EXPECT_EQ(ws.front().bytes, *topo->cache_bytes(1) / 2);
  EXPECT_EQ(ws.back().level, "DRAM");
  EXPECT_GE(ws.back().bytes, 4 * topo->llc_bytes_for({topo->pus()[0]}));
  for (std::size_t i = 1; i < ws.size(); ++i) EXPECT_GT(ws[i].bytes, ws[i - 1].bytes);
}

// The LLC's working set stays out of the readers' private caches: LLC/2 where those hold less,
// else halfway between them and the LLC (16 Emerald Rapids threads: 32 MiB of L2, LLC 64 MiB).
TEST(Ceilings, LlcWorkingSetStaysOutOfTheReadersPrivateCaches) {
  constexpr std::int64_t MiB = 1 << 20;
  EXPECT_EQ(llc_working_set_bytes(64 * MiB, 32 * MiB), 48 * MiB);
  EXPECT_EQ(llc_working_set_bytes(64 * MiB, 16 * MiB), 32 * MiB);
  EXPECT_EQ(llc_working_set_bytes(16 * MiB, 2 * MiB), 8 * MiB);
  EXPECT_EQ(llc_working_set_bytes(16 * MiB, 32 * MiB), 8 * MiB);  // private caches beyond the LLC

  auto topo = testing::synthetic_topology(testing::kTwoCoresSharedL3);
  ASSERT_EQ(topo->last_level(), 3);
  const std::vector<unsigned> pus = topo->pus();
  const std::int64_t l2s = topo->cache_bytes_for(topo->last_level() - 1, pus);
  ASSERT_GT(l2s, 0);
  topo->replace_llc(l2s + l2s / 2, "test", "LLC 1.5x the L2s");
  const std::vector<WorkingSet> ws = ceiling_working_sets(*topo, pus, static_cast<int>(pus.size()));
  const auto llc = std::find_if(ws.begin(), ws.end(), [&](const WorkingSet& w) {
    return w.level == "L" + std::to_string(topo->last_level());
  });
  ASSERT_NE(llc, ws.end());
  EXPECT_EQ(llc->bytes, (l2s + l2s + l2s / 2) / 2);
  EXPECT_GT(llc->bytes, l2s);
}

// Small sizes keep this quick: the point is that every ceiling is positive and the read
// bandwidth falls (within noise) as the working set moves out of each cache level. Each level's
// rate is the best of three rounds over all levels in turn: a shared guest's slow spells last
// seconds, and one of them on a single level (a 2-vCPU Zen 3 guest read its L2 at 86 GB/s and
// its L3 at 119 in one CI run, where its ceilings read 157 and 117) made the order fail.
TEST(Ceilings, PositiveAndOrderedAcrossLevels) {
  auto topo = Topology::discover();
  const int T = std::min(2, topo->pu_count());
  ThreadPool pool(*topo, T, parse_pin_policy("compact"));
  const std::vector<WorkingSet> hw = ceiling_working_sets(*topo, pool.bound_pus(), T);
  std::vector<WorkingSet> levels = {hw[0]};
  if (hw.size() > 2) levels.push_back(hw[1]);  // L2
  levels.push_back({"L3", 8 << 20});
  levels.push_back({"DRAM", 512 << 20});
  CeilingOptions opt;
  opt.min_seconds = 0.05;
  opt.repetitions = 3;
  std::vector<double> read(levels.size(), 0.0);
  for (int round = 0; round < 3; ++round) {
    for (std::size_t i = 0; i < levels.size(); ++i) {
      const WorkingSet& ws = levels[i];
      const CeilingResult r = measure_bandwidth(pool, *topo, CeilingKind::kRead, ws, opt);
      EXPECT_GT(r.gbps, 0.5) << ws.level;
      EXPECT_EQ(r.bytes_written, 0);
      EXPECT_GT(r.iterations, 0);
      read[i] = std::max(read[i], r.gbps);
      std::printf("round %d read %-4s %10lld B  %7.1f GB/s\n", round, ws.level.c_str(),
                  static_cast<long long>(r.working_set_bytes), r.gbps);
    }
  }
#ifdef __OPTIMIZE__
  // Unoptimised (sanitizer/Debug) builds are compute bound at every size: order means nothing.
  for (std::size_t i = 1; i < read.size(); ++i) EXPECT_GE(read[i - 1], 0.8 * read[i]) << levels[i].level;
  EXPECT_GT(read.front(), 1.5 * read.back());  // L1 vs DRAM: a real gap on any machine
#endif
  for (CeilingKind k : {CeilingKind::kWrite, CeilingKind::kWriteNT, CeilingKind::kCopy}) {
    const CeilingResult r = measure_bandwidth(pool, *topo, k, levels[0], opt);
    EXPECT_GT(r.gbps, 0.5) << ceiling_benchmark_name(k);
    EXPECT_GT(r.bytes_written, 0);
  }
  const CeilingResult f = measure_fma(pool, opt);
  EXPECT_GT(f.gflops, 0.0);
  EXPECT_GT(f.flops, 0);
  EXPECT_EQ(f.threads, T);
}

// Two threads that spin on `pu` while the object lives: the scheduler gives a worker bound there
// about a third of that PU, as a busy sibling hardware thread takes half a core's FMA units.
class BusyBeside {
 public:
  BusyBeside(const Topology& topo, unsigned pu) {
    std::atomic<int> bound{0};
    for (int i = 0; i < 2; ++i) {
      busy_.emplace_back([this, &topo, &bound, pu] {
        PinPolicy there;
        there.kind = PinKind::kExplicit;
        there.pus = {pu};
        const ThreadPool own(topo, 1, there);  // binds this thread while it lives
        ++bound;
        while (!stop_.load(std::memory_order_relaxed)) {
        }
      });
    }
    while (bound < 2) std::this_thread::yield();
  }
  ~BusyBeside() {
    stop_ = true;
    for (std::thread& t : busy_) t.join();
  }

 private:
  std::atomic<bool> stop_{false};
  std::vector<std::thread> busy_;
};

// The FMA burst times each worker's own share: with the PU of worker 1 shared, the burst names
// worker 1 as its slowest, well below the fastest.
TEST(Ceilings, FmaBurstNamesTheWorkerWhosePuIsShared) {
  auto topo = Topology::discover();
  if (topo->pu_count() < 2) GTEST_SKIP() << "needs two PUs";
  ThreadPool pool(*topo, 2, parse_pin_policy("compact"));
  CeilingOptions opt;
  opt.min_seconds = 0.05;
  const CeilingResult alone = measure_fma(pool, opt, 1);
  EXPECT_EQ(alone.slowest_worker, -1);
  EXPECT_EQ(alone.slowest_worker_pct, 100);
  const CeilingResult both = measure_fma(pool, opt, 2);
  EXPECT_TRUE(both.slowest_worker == 0 || both.slowest_worker == 1) << both.slowest_worker;
  EXPECT_GT(both.slowest_worker_pct, 0);
  EXPECT_LE(both.slowest_worker_pct, 100);

  const BusyBeside busy(*topo, pool.bound_pus()[1]);
  // A time slice can favour either thread over one burst: three bursts, the clearest counts.
  CeilingResult shared;
  for (int attempt = 0; attempt < 3; ++attempt) {
    const CeilingResult r = measure_fma(pool, opt, 2);
    if (attempt == 0 || r.slowest_worker_pct < shared.slowest_worker_pct) shared = r;
  }
  EXPECT_EQ(shared.slowest_worker, 1);
  EXPECT_LT(shared.slowest_worker_pct, 80) << "worker 1 had a third of its PU";
}

// The run's FMA ceiling bursts again while a worker is slowed, up to its limit, and keeps the
// fastest; one worker (no worker to be slower than another) takes one burst.
TEST(Ceilings, FmaCeilingBurstsAgainWhileAWorkerIsSlowed) {
  auto topo = Topology::discover();
  if (topo->pu_count() < 2) GTEST_SKIP() << "needs two PUs";
  CeilingOptions opt;
  opt.min_seconds = 0.05;
  ThreadPool one(*topo, 1, parse_pin_policy("compact"));
  const CeilingResult alone = measure_fma_ceiling(one, opt, 3);
  EXPECT_EQ(alone.bursts, 1);
  EXPECT_EQ(slowest_worker_text(alone, one.bound_pus()), "");

  ThreadPool pool(*topo, 2, parse_pin_policy("compact"));
  const BusyBeside busy(*topo, pool.bound_pus()[1]);
  // Worker 1 has a third of its PU, so the first burst is uneven and a second follows. A time
  // slice can still favour worker 1 through a whole first burst (seen once in a README test run,
  // 2026-12-05): up to three measurements, the first whose first burst was uneven counts.
  std::vector<CeilingResult> bursts;
  for (int attempt = 0; attempt < 3 && bursts.size() < 2; ++attempt) bursts = measure_fma_bursts(pool, opt, 3);
  // The host can also slow worker 0 for a whole burst (seen once, in a README test run), making a
  // later burst even: the bursts stop there, and only there, before the limit.
  ASSERT_GE(bursts.size(), 2u) << "worker 1 had a third of its PU in the first burst of three measurements";
  ASSERT_LE(bursts.size(), 3u);
  for (std::size_t i = 0; i + 1 < bursts.size(); ++i) EXPECT_LT(bursts[i].slowest_worker_pct, kEvenBurstPct) << i;
  if (bursts.size() < 3) {
    EXPECT_GE(bursts.back().slowest_worker_pct, kEvenBurstPct);
  }
  const CeilingResult kept = fastest_burst(bursts);
  EXPECT_EQ(kept.bursts, static_cast<int>(bursts.size()));
  for (const CeilingResult& b : bursts) EXPECT_GE(kept.gflops, b.gflops);
  const std::string fastest_of = ", the fastest of " + std::to_string(bursts.size()) + " bursts";
  EXPECT_NE(slowest_worker_text(kept, pool.bound_pus()).find(fastest_of), std::string::npos)
      << slowest_worker_text(kept, pool.bound_pus());
}

TEST(Ceilings, FastestBurstIsTheHighestRateAndCountsTheBursts) {
  std::vector<CeilingResult> bursts(3);
  bursts[0].gflops = 348;
  bursts[1].gflops = 666;
  bursts[1].slowest_worker_pct = 96;
  bursts[2].gflops = 610;
  const CeilingResult kept = fastest_burst(bursts);
  EXPECT_EQ(kept.gflops, 666);
  EXPECT_EQ(kept.slowest_worker_pct, 96);
  EXPECT_EQ(kept.bursts, 3);
  EXPECT_THROW(fastest_burst({}), HarnessError);
}

// A buffer allocated once serves every kind again and again, on all of a pool's workers or
// the first few (a single-threaded family's ceiling measured on a wider pool).
// Up to two compact workers and short ceilings (2 x 0.02 s), with a 4 MiB L3 buffer on them.
struct TwoWorkerBuffer {
  std::unique_ptr<Topology> topo = Topology::discover();
  int T = std::min(2, topo->pu_count());
  ThreadPool pool{*topo, T, parse_pin_policy("compact")};
  CeilingOptions opt = [] {
    CeilingOptions o;
    o.min_seconds = 0.02;
    o.repetitions = 2;
    return o;
  }();
  CeilingBuffer buffer{pool, *topo, {"L3", 4 << 20}, T, Placement{}};
};

TEST(Ceilings, ReusableBufferMeasuresEveryKindOnItsWorkers) {
  TwoWorkerBuffer two;
  auto& [topo, T, pool, opt, all] = two;
  EXPECT_EQ(all.shared(), topo->last_level() == 3) << "the LLC is read in claimed chunks";
  EXPECT_EQ(all.level(), "L3");
  EXPECT_EQ(all.bytes(), (4 << 20) / T / 8192 * 8192 * T);
  for (int round = 0; round < 2; ++round) {
    for (CeilingKind k : {CeilingKind::kRead, CeilingKind::kWrite, CeilingKind::kWriteNT, CeilingKind::kCopy}) {
      const CeilingResult r = measure_bandwidth(pool, k, all, opt);
      EXPECT_GT(r.gbps, 0.5) << ceiling_benchmark_name(k);
      EXPECT_EQ(r.level, "L3");
      EXPECT_EQ(r.threads, T);
      EXPECT_EQ(r.working_set_bytes, all.bytes()) << ceiling_benchmark_name(k);
      // Every kind moves the buffer once per sweep: copy reads one half and writes the other.
      EXPECT_EQ(r.bytes_read + r.bytes_written, all.bytes()) << ceiling_benchmark_name(k);
      EXPECT_EQ(r.bytes_read, k == CeilingKind::kRead ? all.bytes() : k == CeilingKind::kCopy ? all.bytes() / 2 : 0);
    }
  }
  const CeilingBuffer first(pool, *topo, {"L2", 1 << 20}, 1, Placement{});
  const CeilingResult one = measure_bandwidth(pool, CeilingKind::kRead, first, opt);
  EXPECT_EQ(one.threads, 1);
  EXPECT_EQ(one.working_set_bytes, 1 << 20);
  EXPECT_GT(one.gbps, 0.5);
  EXPECT_THROW(measure_bandwidth(pool, CeilingKind::kFma, first, opt), HarnessError);
  EXPECT_THROW(measure_bandwidth(pool, CeilingKind::kBarrier, first, opt), HarnessError);
  EXPECT_THROW(CeilingBuffer(pool, *topo, {"L1", 4096}, T, Placement{}), HarnessError);  // < 8 KiB each
  EXPECT_THROW(CeilingBuffer(pool, *topo, {"L1", 1 << 20}, T + 1, Placement{}), HarnessError);
}

// A read ceiling times the plain loop, the one with the kernels' prefetch window and the plain
// loop over two and over four streams and keeps the fastest (a ceiling must bound kernels that
// prefetch and read K and V at once); the other kinds and the curve time one loop.
TEST(Ceilings, ReadIsTheFastestOfThePlainLoopTheWindowedOneAndTwoAndFourStreams) {
  TwoWorkerBuffer two;
  auto& [topo, T, pool, opt, buffer] = two;
  const CeilingResult kept = measure_bandwidth(pool, CeilingKind::kRead, buffer, opt);  // claimed chunks on 2 PUs
  const CeilingResult fresh = measure_bandwidth(pool, *topo, CeilingKind::kRead, {"L2", 256 << 10}, opt);
  for (const CeilingResult& r : {kept, fresh}) {
    EXPECT_GT(r.plain_gbps, 0.5) << r.level;
    EXPECT_GT(r.window_gbps, 0.5) << r.level;
    EXPECT_GT(r.two_streams_gbps, 0.5) << r.level;
    EXPECT_GT(r.four_streams_gbps, 0.5) << r.level;
    EXPECT_DOUBLE_EQ(r.gbps, std::max({r.plain_gbps, r.window_gbps, r.two_streams_gbps, r.four_streams_gbps}))
        << r.level;
    EXPECT_NE(read_loops_text(r).find("plain loop"), std::string::npos) << read_loops_text(r);
    EXPECT_NE(read_loops_text(r).find(", two streams "), std::string::npos) << read_loops_text(r);
    EXPECT_NE(read_loops_text(r).find(", four streams "), std::string::npos) << read_loops_text(r);
    EXPECT_EQ(r.window_hint, sw_prefetch());
  }
  const CeilingResult copy = measure_bandwidth(pool, CeilingKind::kCopy, buffer, opt);
  EXPECT_EQ(copy.plain_gbps, 0);
  EXPECT_EQ(copy.window_gbps, 0);
  EXPECT_EQ(copy.two_streams_gbps, 0);
  EXPECT_EQ(copy.four_streams_gbps, 0);
  EXPECT_EQ(read_loops_text(copy), "");
  // The window takes the kernels' hint; where they prefetch nothing, so does the ceiling.
  const SwPrefetch before = sw_prefetch();
  set_sw_prefetch(SwPrefetch::kT2);
  const CeilingResult t2 = measure_bandwidth(pool, CeilingKind::kRead, buffer, opt);
  set_sw_prefetch(SwPrefetch::kNone);
  const CeilingResult none = measure_bandwidth(pool, CeilingKind::kRead, buffer, opt);
  set_sw_prefetch(before);
  EXPECT_EQ(t2.window_hint, SwPrefetch::kT2);
  EXPECT_GT(t2.window_gbps, 0.5);
  EXPECT_NE(read_loops_text(t2).find("T2 window"), std::string::npos) << read_loops_text(t2);
  EXPECT_EQ(none.window_gbps, 0);
  EXPECT_GT(none.two_streams_gbps, 0.5);  // the streams prefetch nothing either
  EXPECT_GT(none.four_streams_gbps, 0.5);
  EXPECT_DOUBLE_EQ(none.gbps, std::max({none.plain_gbps, none.two_streams_gbps, none.four_streams_gbps}));
  EXPECT_EQ(read_loops_text(none).find("window"), std::string::npos) << read_loops_text(none);
  EXPECT_NE(read_loops_text(none).find("two streams"), std::string::npos) << read_loops_text(none);
  // The LLC probe's curve times the plain loop alone.
  const std::vector<CeilingResult> curve = measure_read_curve(pool, *topo, {64 << 10}, opt);
  ASSERT_EQ(curve.size(), 1u);
  EXPECT_DOUBLE_EQ(curve[0].plain_gbps, curve[0].gbps);
  EXPECT_EQ(curve[0].window_gbps, 0);
  EXPECT_EQ(curve[0].two_streams_gbps, 0);
  EXPECT_EQ(curve[0].four_streams_gbps, 0);
  EXPECT_EQ(read_loops_text(curve[0]), "");
}

// The barrier ceiling is a time per crossing of the pool's own barrier, with no bytes or flops.
// Two workers wait for each other's cache line on every crossing; one alone waits for nobody, so
// its crossing costs a store and a loop over no one, far less than a transfer between cores.
#ifdef __OPTIMIZE__
// 13 ns alone on the Zen 3 guest; a transfer between two vCPUs took 62 ns and more (findings.md).
constexpr double kTransferOverLone = 2.0;
#else
// Unoptimised (sanitizer/Debug) builds: the lone crossing's uninlined, instrumented loop took
// 144 ns there (CI's ASan pass of af19192), as long as a quick transfer; only the order holds.
constexpr double kTransferOverLone = 1.0;
#endif
TEST(Ceilings, BarrierCrossingIsATimeAndTwoWorkersPayForEachOther) {
  auto topo = Topology::discover();
  CeilingOptions opt;
  opt.min_seconds = 0.02;
  opt.repetitions = 3;
  ThreadPool alone(*topo, 1, parse_pin_policy("compact"));
  const CeilingResult one = measure_barrier(alone, opt);
  EXPECT_EQ(std::string(ceiling_benchmark_name(one.kind)), "ceiling_barrier");
  EXPECT_EQ(one.threads, 1);
  EXPECT_GT(one.iterations, 1000);  // 0.02 s of crossings of at most a few microseconds each
  EXPECT_GT(one.ns_per_sweep, 0.0);
  EXPECT_EQ(one.bytes_read + one.bytes_written + one.flops, 0);
  EXPECT_EQ(one.gbps, 0.0);
  EXPECT_EQ(one.level, "");
  if (topo->pu_count() < 2) GTEST_SKIP() << "one PU: no second worker to wait for";
  ThreadPool pair(*topo, 2, parse_pin_policy("compact"));
  const CeilingResult two = measure_barrier(pair, opt);
  EXPECT_EQ(two.threads, 2);
  std::printf("barrier crossing: 1 worker %.1f ns, 2 workers %.1f ns\n", one.ns_per_sweep, two.ns_per_sweep);
  EXPECT_GT(two.ns_per_sweep, kTransferOverLone * one.ns_per_sweep);
  // Pairs: each two PUs on a pool of their own; one PU, or one PU twice, is no pair.
  const std::vector<unsigned> pus = pair.bound_pus();
  const auto matrix = measure_barrier_pairs(*topo, pus, opt);
  ASSERT_EQ(matrix.size(), 2u);
  EXPECT_EQ(matrix[0][0], 0.0);
  EXPECT_EQ(matrix[0][1], matrix[1][0]);
  EXPECT_GT(matrix[0][1], kTransferOverLone * one.ns_per_sweep);
  EXPECT_THROW(measure_barrier_pairs(*topo, {pus[0]}, opt), HarnessError);
  EXPECT_THROW(measure_barrier_pairs(*topo, {pus[0], pus[0]}, opt), HarnessError);
}

}  // namespace
}  // namespace kvb
