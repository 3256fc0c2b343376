#include "harness/parallel_decode.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <set>

#include "harness/error.h"
#include "harness/memory.h"
#include "harness/thread_pool.h"
#include "harness/topology.h"
#include "kernels/attention.h"
#include "kernels/cache_write.h"

namespace kvb {
namespace {

TEST(PartitionDecode, KeepsEveryThreadBusyAndCoversEachRowOnce) {
  struct Case { std::int32_t heads; std::int64_t context; int threads; };
  for (const Case& c : {Case{8, 1024, 16}, Case{1, 1024, 2}, Case{8, 1024, 3}, Case{8, 1024, 1}, Case{2, 7, 5}}) {
    const auto plan = partition_decode(c.heads, c.context, c.threads);
    ASSERT_EQ(plan.size(), static_cast<std::size_t>(c.threads));
    std::vector<std::vector<int>> seen(static_cast<std::size_t>(c.heads), std::vector<int>(static_cast<std::size_t>(c.context)));
    std::int64_t lo = INT64_MAX, hi = 0;
    for (const auto& items : plan) {
      EXPECT_FALSE(items.empty()) << c.heads << " heads, " << c.threads << " threads";
      std::int64_t rows = 0;
      for (const WorkItem& it : items) {
        ASSERT_LT(it.t0, it.t1);
        for (std::int64_t t = it.t0; t < it.t1; ++t) ++seen[static_cast<std::size_t>(it.kv_head)][static_cast<std::size_t>(t)];
        rows += it.t1 - it.t0;
      }
      lo = std::min(lo, rows);
      hi = std::max(hi, rows);
    }
    EXPECT_LE(hi - lo, 1);  // balanced to one position
    for (const auto& h : seen)
      for (int n : h) ASSERT_EQ(n, 1);
  }
}

// Chunks cover every (head, position) once, in head-major order, never fewer than the workers
// where there are enough positions, several per worker where the ranges stay long, and never
// shorter than kMinChunkRows unless that is what gives every worker one.
TEST(ChunkDecode, CoversEachRowOnceWithEnoughLongChunksForTheWorkers) {
  struct Case { std::int32_t heads; std::int64_t context; int threads; std::size_t chunks; };
  for (const Case& c : {Case{8, 4682, 16, 256},   // Qwen3-0.6B from DRAM: 16 per worker, 146 rows
                        Case{8, 2048, 16, 128},   // kMinChunkRows caps it: 16 per head
                        Case{8, 219, 16, 16},     // its LLC rows: one each, 109-110 rows
                        Case{8, 4682, 2, 32},     // quarter heads give 16 per worker
                        Case{1, 16384, 16, 128},  // MQA: one head cut in kMinChunkRows pieces
                        Case{1, 200, 2, 2},       // short: one per worker, below kMinChunkRows
                        Case{2, 3, 16, 6},        // fewer positions than workers: one row each
                        Case{8, 1024, 1, 16}}) {  // one worker: half heads
    SCOPED_TRACE(std::to_string(c.heads) + " heads, " + std::to_string(c.context) + " positions, " +
                 std::to_string(c.threads) + " threads");
    const std::vector<WorkItem> chunks = chunk_decode(c.heads, c.context, c.threads);
    EXPECT_EQ(chunks.size(), c.chunks);
    std::vector<std::vector<int>> seen(static_cast<std::size_t>(c.heads), std::vector<int>(static_cast<std::size_t>(c.context)));
    std::int32_t head = 0;
    for (const WorkItem& it : chunks) {
      ASSERT_LT(it.t0, it.t1);
      ASSERT_GE(it.kv_head, head);  // head-major
      head = it.kv_head;
      if (chunks.size() > static_cast<std::size_t>(std::max(c.heads, c.threads))) {
        EXPECT_GE(it.t1 - it.t0, kMinChunkRows);
      }
      for (std::int64_t t = it.t0; t < it.t1; ++t) ++seen[static_cast<std::size_t>(it.kv_head)][static_cast<std::size_t>(t)];
    }
    for (const auto& h : seen)
      for (int n : h) ASSERT_EQ(n, 1);
  }
  EXPECT_TRUE(chunk_decode(0, 10, 2).empty());
  EXPECT_TRUE(chunk_decode(2, 0, 2).empty());
}

// A cache of `shape` (with its scale array where the dtype has row scales), buffers placed by
// default.
struct Fixture {
  CacheShape shape;
  CacheGeometry geo;
  std::unique_ptr<Buffer> data, scales;
  CacheView view{};
  Fixture(const Topology& topo, const CacheShape& s) : shape(s) {
    EXPECT_TRUE(ok(CacheGeometry::create(shape, &geo)));
    data = std::make_unique<Buffer>(topo, static_cast<std::size_t>(geo.data_bytes()), Placement{});
    if (geo.scale_bytes() > 0) scales = std::make_unique<Buffer>(topo, static_cast<std::size_t>(geo.scale_bytes()), Placement{});
    view = CacheView{&geo, data->data(), scales ? static_cast<float*>(scales->data()) : nullptr};
  }
  // 3 layers, 8 q / 2 KV heads, head_dim 64, 160 positions.
  Fixture(const Topology& topo, DType dt, Layout layout) : Fixture(topo, shape_of(3, 8, 2, 64, 160, dt, layout)) {}

  static CacheShape shape_of(std::int32_t layers, std::int32_t q_heads, std::int32_t kv_heads, std::int32_t head_dim,
                             std::int64_t capacity, DType dt = DType::kF32, Layout layout = Layout::kHeadMajor) {
    CacheShape s;
    s.layers = layers; s.q_heads = q_heads; s.kv_heads = kv_heads; s.head_dim = head_dim; s.capacity = capacity;
    s.dtype = dt; s.layout = layout;
    return s;
  }
};

// Largest |fast - reference| relative to the largest |reference| over one layer's output.
double rel_err(const CacheView& view, int layer, std::int64_t context, const float* q, float scale, const float* out) {
  const CacheShape& s = view.geometry->shape();
  const std::size_t n = static_cast<std::size_t>(s.q_heads) * static_cast<std::size_t>(s.head_dim);
  std::vector<double> ref(n), ws(static_cast<std::size_t>(context));
  EXPECT_TRUE(ok(decode_attention_reference(view, layer, context, q, scale, ref.data(), ws.data())));
  double err = 0, mag = 0;
  for (std::size_t i = 0; i < n; ++i) {
    err = std::max(err, std::abs(static_cast<double>(out[i]) - ref[i]));
    mag = std::max(mag, std::abs(ref[i]));
  }
  return err / mag;
}

TEST(ParallelDecode, TwoThreadsMatchReferenceAndSingleThreadKernel) {
  auto topo = Topology::discover();
  const int T = std::min(2, topo->pu_count());
  ThreadPool pool(*topo, T, parse_pin_policy("compact"));
  for (DType dt : kAllDTypes) {
    for (Layout layout : {Layout::kHeadMajor, Layout::kPositionMajor}) {
      Fixture f(*topo, dt, layout);
      const std::int64_t context = 150;
      ParallelDecode dec(pool, f.view, context);
      dec.place_and_fill(42);
      dec.run(ParallelDecode::Mode::kStep, 3);
      // The step appended new_key/new_value at context-1 in every layer.
      std::vector<float> k_row(64);
      const std::vector<float> ws(static_cast<std::size_t>(attention_partial_floats(f.shape)));
      for (int l = 0; l < f.shape.layers; ++l) {
        const double e = rel_err(f.view, l, context, dec.query(l), dec.scale(), dec.output(l));
        EXPECT_LT(e, dt == DType::kF32 ? 1e-5 : 1e-3) << dtype_name(dt) << " " << layout_name(layout) << " layer " << l;
        // Same as the single-thread kernel on the same cache.
        std::vector<float> single(static_cast<std::size_t>(f.shape.q_heads * f.shape.head_dim));
        std::vector<float> wsp(ws.size());
        ASSERT_TRUE(ok(decode_attention(f.view, l, context, dec.query(l), dec.scale(), single.data(), wsp.data())));
        for (std::size_t i = 0; i < single.size(); ++i)
          ASSERT_NEAR(single[i], dec.output(l)[i], 1e-5f * (1 + std::abs(single[i]))) << i;
      }
      // The appended row is really there: compare with append_token into a fresh copy.
      Fixture g(*topo, dt, layout);
      std::memcpy(g.data->data(), f.data->data(), static_cast<std::size_t>(f.geo.data_bytes()));
      if (g.scales) std::memcpy(g.scales->data(), f.scales->data(), static_cast<std::size_t>(f.geo.scale_bytes()));
      for (int l = 0; l < f.shape.layers; ++l)
        ASSERT_TRUE(ok(append_token(g.view, l, context - 1, dec.new_key(), dec.new_value())));
      EXPECT_EQ(std::memcmp(g.data->data(), f.data->data(), static_cast<std::size_t>(f.geo.data_bytes())), 0);

      // Attention alone gives the same outputs; append alone leaves outputs alone.
      std::vector<float> before(dec.output(0), dec.output(0) + f.shape.q_heads * f.shape.head_dim);
      dec.run(ParallelDecode::Mode::kAttention, 2);
      for (std::size_t i = 0; i < before.size(); ++i) ASSERT_FLOAT_EQ(before[i], dec.output(0)[i]);
      dec.run(ParallelDecode::Mode::kAppend, 2);
      EXPECT_EQ(std::memcmp(g.data->data(), f.data->data(), static_cast<std::size_t>(f.geo.data_bytes())), 0);
      // Streaming stores write the same bytes at the same slot, and count as appends.
      for (int l = 0; l < f.shape.layers; ++l)
        std::memset(static_cast<unsigned char*>(f.data->data()) + f.geo.byte_offset(l, KV::kKey, 0, context - 1), 0x5a,
                    static_cast<std::size_t>(dtype_row_bytes(dt, f.shape.head_dim)));
      dec.run(ParallelDecode::Mode::kAppendStreaming, 1);
      EXPECT_EQ(std::memcmp(g.data->data(), f.data->data(), static_cast<std::size_t>(f.geo.data_bytes())), 0);
      EXPECT_EQ(dec.cost(ParallelDecode::Mode::kAppendStreaming).bytes_written,
                dec.cost(ParallelDecode::Mode::kAppend).bytes_written);
    }
  }
}

// Advancing slots: step s of an append (append_streaming, append_memcpy) run writes position first + s, wrapping
// within the context, and runs go on where the last one stopped; nothing else is written, and the
// decode step still rewrites context - 1.
TEST(ParallelDecode, AdvancingAppendSlotsWriteTheNextPositionsAndWrap) {
  auto topo = Topology::discover();
  const int T = std::min(2, topo->pu_count());
  ThreadPool pool(*topo, T, parse_pin_policy("compact"));
  for (DType dt : {DType::kF32, DType::kI8}) {
    for (const ParallelDecode::Mode mode : {ParallelDecode::Mode::kAppend, ParallelDecode::Mode::kAppendMemcpy,
                                            ParallelDecode::Mode::kAppendStreaming}) {
      Fixture f(*topo, dt, Layout::kHeadMajor);
      const std::int64_t context = 10;
      ParallelDecode dec(pool, f.view, context);
      dec.place_and_fill(7);
      EXPECT_EQ(dec.append_position(), context - 1);
      EXPECT_THROW(dec.advance_append_slots(context), HarnessError);
      EXPECT_THROW(dec.advance_append_slots(-1), HarnessError);
      dec.advance_append_slots(7);
      // Expected cache: the same fill with the token appended at 7, 8, 9, 0, 1.
      Fixture g(*topo, dt, Layout::kHeadMajor);
      std::memcpy(g.data->data(), f.data->data(), static_cast<std::size_t>(f.geo.data_bytes()));
      if (g.scales) std::memcpy(g.scales->data(), f.scales->data(), static_cast<std::size_t>(f.geo.scale_bytes()));
      for (std::int64_t pos : {7, 8, 9, 0, 1})
        for (int l = 0; l < f.shape.layers; ++l)
          ASSERT_TRUE(ok(append_token(g.view, l, pos, dec.new_key(), dec.new_value())));
      dec.run(mode, 2);
      EXPECT_EQ(dec.append_position(), 8);
      dec.run(mode, 3);
      EXPECT_EQ(dec.append_position(), 1);
      EXPECT_EQ(std::memcmp(g.data->data(), f.data->data(), static_cast<std::size_t>(f.geo.data_bytes())), 0)
          << dtype_name(dt);
      if (g.scales) {
        EXPECT_EQ(std::memcmp(g.scales->data(), f.scales->data(), static_cast<std::size_t>(f.geo.scale_bytes())), 0);
      }
      dec.run(ParallelDecode::Mode::kStep, 1);
      EXPECT_EQ(dec.append_position(), context - 1);
      dec.run(mode, 1);  // the run after a step goes on from the slots' own cursor
      EXPECT_EQ(dec.append_position(), 2);
    }
  }
}

TEST(ParallelDecode, OneKvHeadKeepsTwoThreadsBusyAndRejectsBadContext) {
  auto topo = Topology::discover();
  const int T = std::min(2, topo->pu_count());
  ThreadPool pool(*topo, T, parse_pin_policy("compact"));
  const Fixture c(*topo, Fixture::shape_of(2, 4, 1, 128, 256));
  const CacheShape& s = c.shape;
  const CacheView& view = c.view;
  EXPECT_THROW(ParallelDecode(pool, view, 257), HarnessError);
  EXPECT_THROW(ParallelDecode(pool, view, 0), HarnessError);
  ParallelDecode dec(pool, view, 256);
  for (const auto& items : dec.plan()) EXPECT_FALSE(items.empty());
  dec.place_and_fill(1);
  dec.run(ParallelDecode::Mode::kStep, 1);
  for (int l = 0; l < s.layers; ++l) EXPECT_LT(rel_err(view, l, 256, dec.query(l), dec.scale(), dec.output(l)), 1e-5);
  EXPECT_EQ(dec.cost(ParallelDecode::Mode::kStep).bytes_read, decode_step_cost(s, 256).bytes_read);
}

// Contexts long enough for several chunks per worker take the claiming path (each worker's
// block from its own counter, then the others'): every layer still matches the reference and
// the single-thread kernel, whichever worker took which chunk, step after step.
TEST(ParallelDecode, ClaimedChunksMatchReferenceAndSingleThreadKernel) {
  auto topo = Topology::discover();
  const int T = std::min(2, topo->pu_count());
  ThreadPool pool(*topo, T, parse_pin_policy("compact"));
  const Fixture c(*topo, Fixture::shape_of(3, 8, 2, 64, 1100));
  const std::int64_t context = c.shape.capacity;
  ASSERT_GT(chunk_decode(c.shape.kv_heads, context, T).size(), static_cast<std::size_t>(T));
  ParallelDecode dec(pool, c.view, context);
  dec.place_and_fill(5);
  std::vector<float> wsp(static_cast<std::size_t>(attention_partial_floats(c.shape)));
  std::vector<float> single(static_cast<std::size_t>(c.shape.q_heads * c.shape.head_dim));
  for (int round = 0; round < 3; ++round) {
    dec.run(round == 1 ? ParallelDecode::Mode::kAttention : ParallelDecode::Mode::kStep, 2);
    for (int l = 0; l < c.shape.layers; ++l) {
      EXPECT_LT(rel_err(c.view, l, context, dec.query(l), dec.scale(), dec.output(l)), 1e-5) << "layer " << l;
      ASSERT_TRUE(ok(decode_attention(c.view, l, context, dec.query(l), dec.scale(), single.data(), wsp.data())));
      for (std::size_t i = 0; i < single.size(); ++i)
        ASSERT_NEAR(single[i], dec.output(l)[i], 1e-5f * (1 + std::abs(single[i]))) << "layer " << l << " " << i;
    }
  }
}

// The barrier-wait share: zero with one worker; with two, a worker left without positions (one
// KV head, one position: the other worker attends, merges and appends) spends its whole run at
// the barriers, so well over a quarter of the pair's time is waiting. A wait ends at the last
// arrival, so the crossing itself is not counted: the busy worker's layer (32 heads of 256 dims)
// is made long beside a crossing. With 8 heads of 128 the 2-vCPU Zen 5 guest, crossing in about
// 300 ns, read 0.23-0.30 in 20 repeats; with this shape 0.37-0.41.
TEST(ParallelDecode, BarrierWaitCountsAWorkerLeftWaiting) {
  auto topo = Topology::discover();
  const Fixture c(*topo, Fixture::shape_of(4, 32, 1, 256, 64));
  const CacheView& view = c.view;
  {
    ThreadPool one(*topo, 1, parse_pin_policy("compact"));
    ParallelDecode dec(one, view, 64);
    dec.place_and_fill(3);
    dec.run(ParallelDecode::Mode::kStep, 4);
    EXPECT_EQ(dec.barrier_wait().running, 0u);
    EXPECT_EQ(dec.barrier_wait().waiting, 0u);
  }
  if (topo->pu_count() < 2) GTEST_SKIP() << "needs two PUs";
  ThreadPool two(*topo, 2, parse_pin_policy("compact"));
  ParallelDecode dec(two, view, 1);
  ASSERT_TRUE(dec.plan()[0].empty());
  dec.place_and_fill(3);
  dec.run(ParallelDecode::Mode::kAppend, 20);  // no barriers: nothing counted
  EXPECT_EQ(dec.barrier_wait().running, 0u);
  EXPECT_TRUE(dec.barrier_wait().by_worker.empty());
  dec.run(ParallelDecode::Mode::kStep, 200);
  const ParallelDecode::BarrierWait w = dec.barrier_wait();
  ASSERT_GT(w.running, 0u);
  EXPECT_LE(w.waiting, w.running);
  EXPECT_GT(static_cast<double>(w.waiting), 0.25 * static_cast<double>(w.running));
  // Per worker: they sum to the total, and every tick waited was for one of them. (Which one
  // waited more depends on the host here: a worker descheduled on a loaded machine holds the
  // other however little it has to do; ThreadPool.StampedBarrierNamesTheLastArrival checks the
  // naming.)
  ASSERT_EQ(w.by_worker.size(), 2u);
  EXPECT_EQ(w.by_worker[0].waiting + w.by_worker[1].waiting, w.waiting);
  EXPECT_EQ(w.by_worker[0].running + w.by_worker[1].running, w.running);
  EXPECT_EQ(w.by_worker[0].held + w.by_worker[1].held, w.waiting);
  EXPECT_EQ(w.by_worker[1].held, w.by_worker[0].waiting);  // with two, each waits for the other
  EXPECT_EQ(w.by_worker[0].held, w.by_worker[1].waiting);
  // Sums over runs: another run adds to both.
  dec.run(ParallelDecode::Mode::kAttention, 10);
  EXPECT_GT(dec.barrier_wait().running, w.running);
}

}  // namespace
}  // namespace kvb
