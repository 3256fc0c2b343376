// variants_bench: what each KV-cache variant costs, as numbers from one run.
//
//   paged/      paged pool (block 16/128, contiguous or shuffled blocks) vs head-major and
//               position-major (the pool without the block table) decode attention, one
//               Qwen3-0.6B layer (16 q / 8 KV heads, d 128, fp32) at context 8192, layers
//               rotated over 2 GiB so every step streams from DRAM.
//   batched/    8 sequences, 16384 rows in all: uniform vs ragged lengths, one thread, and two
//               threads with the row-balanced vs the per-sequence work split; and the ragged
//               batch in one shared fragmented pool (block 16) as work items.
//   chunked/    Tq = 1, 4, 8, 16 queries after an 8176-position prefix (rows read once) vs Tq
//               separate decode calls (Tq = 4, 8).
//   manage/     Qwen3-0.6B cache (28 layers, 1024 tokens, 224 MiB): in-place repack, growth copy
//               into a 2048-position buffer, 4 clones, each with cached and with streaming
//               (non-temporal) stores, vs glibc memcpy of the same bytes.
//   recompute/  decode without a cache (project all T tokens' K/V each step) vs with a cache
//               (project one token, append, attend), T = 128 .. 4096, one layer, hidden 1024.
//
// Every timed kernel is first checked against the double reference. Counters: GB/s (cost-model
// bytes read + written per second), and x_<baseline>: this benchmark's time per iteration over
// the named baseline's, measured earlier in the same run (baselines are registered first).
#include <algorithm>
#include <barrier>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "benchmark/benchmark.h"
#include "hwy/aligned_allocator.h"
#include "kernels/attention.h"
#include "kernels/batched_attention.h"
#include "kernels/cache_management.h"
#include "kernels/cache_write.h"
#include "kernels/chunked_attention.h"
#include "kernels/gemm.h"
#include "kernels/paged_attention.h"
#include "kernels/recompute.h"
#include "kernels/variant_costs.h"

namespace kvb {
namespace {

constexpr std::int64_t kDramBytes = std::int64_t{2} << 30;  // rotation span: 4x hwloc's 504 MiB L3
constexpr std::int64_t kDramContext = 8192;
constexpr double kCheckTol = 1e-4;

using Clock = std::chrono::steady_clock;
using Floats = hwy::AlignedFreeUniquePtr<float[]>;

// ---------------------------------------------------------------- shared helpers
struct Lcg {  // cheap deterministic fill: <random> over gigabytes would dominate the run
  std::uint64_t s;
  float next() {
    s = s * 6364136223846793005ull + 1442695040888963407ull;
    return static_cast<float>(static_cast<std::int64_t>(s >> 40) - (1 << 23)) / float(1 << 23);
  }
};

Floats alloc_floats(std::int64_t n) {
  return hwy::AllocateAligned<float>(static_cast<std::size_t>(n));
}
void fill(float* p, std::int64_t n, std::uint64_t seed) {
  Lcg r{seed};
  for (std::int64_t i = 0; i < n; ++i) p[i] = r.next();
}

CacheShape layer_shape(std::int32_t layers, std::int64_t capacity) {
  CacheShape s;
  s.layers = layers;
  s.q_heads = 16;
  s.kv_heads = 8;
  s.head_dim = 128;
  s.capacity = capacity;
  return s;
}
float scale_of(const CacheShape& s) { return 1.0f / std::sqrt(float(s.head_dim)); }
std::int64_t q_floats(const CacheShape& s) { return std::int64_t{s.q_heads} * s.head_dim; }

// Time per iteration of earlier benchmarks, by name, for the x_<baseline> ratios.
std::map<std::string, double>& baselines() {
  static std::map<std::string, double> m;
  return m;
}

// Runs body() per iteration, then sets GB/s from `cost` and records/compares times.
void time_loop(benchmark::State& state, const Cost& cost, const std::string& record_as,
               const std::string& compare_to, const std::function<Status()>& body) {
  const auto t0 = Clock::now();
  bool failed = false;
  for (auto _ : state) {
    if (Status st = body(); !ok(st)) {
      state.SkipWithError(status_message(st));
      failed = true;
      break;
    }
    benchmark::ClobberMemory();
  }
  if (failed) return;
  const double ns = std::chrono::duration<double, std::nano>(Clock::now() - t0).count() /
                    static_cast<double>(std::max<std::int64_t>(state.iterations(), 1));
  state.counters["GB/s"] = benchmark::Counter(
      static_cast<double>(cost.bytes_read + cost.bytes_written) * 1e-9,
      benchmark::Counter::kIsIterationInvariantRate);
  if (!record_as.empty()) baselines()[record_as] = ns;
  if (!compare_to.empty()) {
    const auto it = baselines().find(compare_to);
    if (it != baselines().end()) state.counters["x_" + compare_to] = ns / it->second;
  }
}

bool close_to_reference(const CacheView& view, std::int32_t layer, std::int64_t context,
                        const float* q, const float* out, std::string* error) {
  const CacheShape& s = view.geometry->shape();
  std::vector<double> ref(static_cast<std::size_t>(q_floats(s)));
  std::vector<double> ws(static_cast<std::size_t>(std::max<std::int64_t>(context, 1)));
  if (Status st = decode_attention_reference(view, layer, context, q, scale_of(s), ref.data(),
                                             ws.data());
      !ok(st)) {
    *error = status_message(st);
    return false;
  }
  double worst = 0;
  for (std::size_t i = 0; i < ref.size(); ++i) worst = std::max(worst, std::fabs(out[i] - ref[i]));
  if (!(worst <= kCheckTol)) {
    char buf[96];
    std::snprintf(buf, sizeof(buf), "differs from the double reference by %g", worst);
    *error = buf;
    return false;
  }
  return true;
}

// A head-major fp32 cache that owns its buffer.
struct OwnedCache {
  CacheGeometry geometry;
  hwy::AlignedFreeUniquePtr<std::uint8_t[]> data;
  CacheView view() { return {&geometry, data.get(), nullptr}; }
};
std::unique_ptr<OwnedCache> make_cache(const CacheShape& s, std::uint64_t seed, std::string* error) {
  auto c = std::make_unique<OwnedCache>();
  if (Status st = CacheGeometry::create(s, &c->geometry); !ok(st)) {
    *error = status_message(st);
    return nullptr;
  }
  c->data = hwy::AllocateAligned<std::uint8_t>(static_cast<std::size_t>(c->geometry.data_bytes()));
  if (!c->data) {
    *error = "cannot allocate the cache";
    return nullptr;
  }
  fill(reinterpret_cast<float*>(c->data.get()), c->geometry.data_bytes() / 4, seed);
  return c;
}

// One big fixture at a time keeps memory bounded (sections free the previous one).
template <typename T>
std::unique_ptr<T>& section_slot() {
  static std::unique_ptr<T> slot;
  return slot;
}
void release_sections();

// ---------------------------------------------------------------- paged vs head-major
struct PagedFixture {
  std::int32_t layers = 0;
  std::unique_ptr<OwnedCache> head_major;       // [layer][K|V][head][8192][128]
  Floats pool;                                  // [layer][K|V][8192 slots][head][128]
  std::int64_t pool_floats = 0;
};

PagedFixture* paged_fixture(std::string* error) {
  auto& slot = section_slot<PagedFixture>();
  if (slot) return slot.get();
  release_sections();
  auto f = std::make_unique<PagedFixture>();
  const std::int64_t per_layer = kv_cache_bytes(1, 8, kDramContext, 128, DType::kF32);
  f->layers = static_cast<std::int32_t>(kDramBytes / per_layer);
  f->head_major = make_cache(layer_shape(f->layers, kDramContext), 1, error);
  if (!f->head_major) return nullptr;
  f->pool_floats = f->head_major->geometry.data_bytes() / 4;  // same rows, slot order
  f->pool = alloc_floats(f->pool_floats);
  if (!f->pool) {
    *error = "cannot allocate the paged pool";
    return nullptr;
  }
  fill(f->pool.get(), f->pool_floats, 2);
  slot = std::move(f);
  return slot.get();
}

void BM_HeadMajor(benchmark::State& state) {
  std::string error;
  PagedFixture* f = paged_fixture(&error);
  if (f == nullptr) return state.SkipWithError(error.c_str());
  const CacheShape& s = f->head_major->geometry.shape();
  std::vector<float> q(static_cast<std::size_t>(q_floats(s))), out(q.size());
  fill(q.data(), q_floats(s), 3);
  std::vector<float> ws(static_cast<std::size_t>(attention_partial_floats(s)));
  const CacheView view = f->head_major->view();
  if (!ok(decode_attention(view, 0, kDramContext, q.data(), scale_of(s), out.data(), ws.data())) ||
      !close_to_reference(view, 0, kDramContext, q.data(), out.data(), &error))
    return state.SkipWithError(error.c_str());
  std::int32_t layer = 0;
  time_loop(state, attention_cost(s, kDramContext), "head_major", "", [&] {
    const Status st = decode_attention(view, layer, kDramContext, q.data(), scale_of(s), out.data(),
                                       ws.data());
    layer = (layer + 1) % s.layers;
    return st;
  });
  state.counters["layers"] = s.layers;
}

// The pool with a contiguous table is exactly a position-major cache: the same rows without
// block indirection, so paged vs this isolates the cost of the block table.
void BM_PositionMajor(benchmark::State& state) {
  std::string error;
  PagedFixture* f = paged_fixture(&error);
  if (f == nullptr) return state.SkipWithError(error.c_str());
  CacheShape s = layer_shape(f->layers, kDramContext);
  s.layout = Layout::kPositionMajor;
  CacheGeometry geo;
  if (Status st = CacheGeometry::create(s, &geo); !ok(st)) return state.SkipWithError(status_message(st));
  const CacheView view{&geo, f->pool.get(), nullptr};
  std::vector<float> q(static_cast<std::size_t>(q_floats(s))), out(q.size());
  fill(q.data(), q_floats(s), 3);
  std::vector<float> ws(static_cast<std::size_t>(attention_partial_floats(s)));
  if (!ok(decode_attention(view, 0, kDramContext, q.data(), scale_of(s), out.data(), ws.data())) ||
      !close_to_reference(view, 0, kDramContext, q.data(), out.data(), &error))
    return state.SkipWithError(error.c_str());
  std::int32_t layer = 0;
  time_loop(state, attention_cost(s, kDramContext), "position_major", "head_major", [&] {
    const Status st = decode_attention(view, layer, kDramContext, q.data(), scale_of(s), out.data(),
                                       ws.data());
    layer = (layer + 1) % s.layers;
    return st;
  });
  state.counters["layers"] = s.layers;
}

void BM_Paged(benchmark::State& state, std::int32_t block_size, bool shuffled) {
  std::string error;
  PagedFixture* f = paged_fixture(&error);
  if (f == nullptr) return state.SkipWithError(error.c_str());
  PagedShape p;
  p.layers = f->layers;
  p.q_heads = 16;
  p.kv_heads = 8;
  p.head_dim = 128;
  p.block_size = block_size;
  p.num_blocks = kDramContext / block_size;
  PagedGeometry geo;
  if (Status st = PagedGeometry::create(p, &geo); !ok(st)) return state.SkipWithError(status_message(st));
  const PagedView pool{&geo, f->pool.get(), nullptr};
  std::vector<std::int32_t> blocks(static_cast<std::size_t>(p.num_blocks));
  assign_blocks(p.num_blocks, shuffled, 17, blocks.data());
  const BlockTable table{blocks.data(), p.num_blocks};

  const CacheShape s = layer_shape(1, kDramContext);
  std::vector<float> q(static_cast<std::size_t>(q_floats(s))), out(q.size());
  fill(q.data(), q_floats(s), 3);
  std::vector<float> ws(static_cast<std::size_t>(paged_attention_workspace_floats(p)));
  if (Status st = paged_decode_attention(pool, 0, table, kDramContext, q.data(), scale_of(s),
                                         out.data(), ws.data());
      !ok(st))
    return state.SkipWithError(status_message(st));
  {  // Check: gather layer 0's logical sequence into a head-major cache, compare with reference.
    OwnedCache gathered;
    if (!ok(CacheGeometry::create(s, &gathered.geometry))) return state.SkipWithError("shape");
    gathered.data = hwy::AllocateAligned<std::uint8_t>(static_cast<std::size_t>(gathered.geometry.data_bytes()));
    const CacheView slots = pool.slot_view();
    for (KV kv : {KV::kKey, KV::kValue})
      for (std::int32_t h = 0; h < s.kv_heads; ++h)
        for (std::int64_t t = 0; t < kDramContext; ++t) {
          const std::int64_t slot = std::int64_t{blocks[t / block_size]} * block_size + t % block_size;
          std::memcpy(gathered.data.get() + gathered.geometry.byte_offset(0, kv, h, t),
                      static_cast<std::uint8_t*>(slots.data) + geo.slots().byte_offset(0, kv, h, slot),
                      static_cast<std::size_t>(s.head_dim) * 4);
        }
    if (!close_to_reference(gathered.view(), 0, kDramContext, q.data(), out.data(), &error))
      return state.SkipWithError(error.c_str());
  }
  std::int32_t layer = 0;
  time_loop(state, paged_attention_cost(p, kDramContext), "", "head_major", [&] {
    const Status st = paged_decode_attention(pool, layer, table, kDramContext, q.data(),
                                             scale_of(s), out.data(), ws.data());
    layer = (layer + 1) % p.layers;
    return st;
  });
  state.counters["layers"] = p.layers;
}

// ---------------------------------------------------------------- chunked (uses the paged fixture)
void BM_Chunked(benchmark::State& state, std::int32_t tq, bool separate_calls) {
  std::string error;
  PagedFixture* f = paged_fixture(&error);
  if (f == nullptr) return state.SkipWithError(error.c_str());
  const CacheShape& s = f->head_major->geometry.shape();
  const std::int64_t prefix = kDramContext - 16;  // same rows read for every tq (<= 16)
  const CacheView view = f->head_major->view();
  const std::int64_t qn = q_floats(s);
  std::vector<float> q(static_cast<std::size_t>(tq * qn)), out(q.size());
  fill(q.data(), tq * qn, 5);
  std::vector<float> ws(static_cast<std::size_t>(
      std::max(chunked_attention_workspace_floats(s, tq), attention_partial_floats(s))));
  const float sc = scale_of(s);
  auto run = [&](std::int32_t layer) -> Status {
    if (!separate_calls)
      return chunked_decode_attention(view, layer, prefix, tq, q.data(), sc, out.data(), ws.data());
    for (std::int32_t i = 0; i < tq; ++i)
      if (Status st = decode_attention(view, layer, prefix + i + 1, q.data() + i * qn, sc,
                                       out.data() + i * qn, ws.data());
          !ok(st))
        return st;
    return Status::kOk;
  };
  if (Status st = run(0); !ok(st)) return state.SkipWithError(status_message(st));
  for (std::int32_t i = 0; i < tq; ++i)
    if (!close_to_reference(view, 0, prefix + i + 1, q.data() + i * qn, out.data() + i * qn, &error))
      return state.SkipWithError(error.c_str());
  Cost cost = chunked_attention_cost(s, prefix, tq);
  if (separate_calls) {
    cost = Cost{};
    for (std::int32_t i = 0; i < tq; ++i) cost += attention_cost(s, prefix + i + 1);
  }
  std::int32_t layer = 0;
  const std::string name = std::string(separate_calls ? "separate" : "chunked") + std::to_string(tq);
  time_loop(state, cost, name, tq == 1 ? "" : "chunked1", [&] {
    const Status st = run(layer);
    layer = (layer + 1) % s.layers;
    return st;
  });
  state.counters["tokens/s"] = benchmark::Counter(tq, benchmark::Counter::kIsIterationInvariantRate);
}

// ---------------------------------------------------------------- batched
// Two sets of 8 lengths with the same 16384 rows per KV head; the ragged set puts most rows in
// the first half of the batch, which the per-sequence split gives to one thread.
const std::vector<std::int64_t>& batch_lengths(bool ragged) {
  static const std::vector<std::int64_t> uniform(8, 2048);
  static const std::vector<std::int64_t> skewed = {7168, 6144, 1024, 1024, 512, 256, 128, 128};
  return ragged ? skewed : uniform;
}

struct BatchFixture {
  std::vector<std::unique_ptr<OwnedCache>> caches;
  std::vector<CacheView> views;
  std::vector<float> q;
};

BatchFixture* batch_fixture(bool ragged, std::string* error) {
  static std::unique_ptr<BatchFixture> fixtures[2];
  auto& f = fixtures[ragged ? 1 : 0];
  if (f) return f.get();
  f = std::make_unique<BatchFixture>();
  for (std::int64_t len : batch_lengths(ragged)) {
    auto c = make_cache(layer_shape(1, len), 10 + len, error);
    if (!c) return nullptr;
    f->views.push_back(c->view());
    f->caches.push_back(std::move(c));
  }
  f->q.resize(static_cast<std::size_t>(8 * q_floats(layer_shape(1, 1))));
  fill(f->q.data(), static_cast<std::int64_t>(f->q.size()), 9);
  return f.get();
}

void BM_Batched(benchmark::State& state, bool ragged, std::int32_t threads, BatchSplit split) {
  std::string error;
  BatchFixture* f = batch_fixture(ragged, &error);
  if (f == nullptr) return state.SkipWithError(error.c_str());
  const auto& lens = batch_lengths(ragged);
  const auto B = static_cast<std::int32_t>(lens.size());
  const CacheShape s = layer_shape(1, 1);
  const float sc = scale_of(s);
  std::vector<BatchWorkItem> items(static_cast<std::size_t>(batch_work_items_bound(B, s.kv_heads, threads)));
  std::vector<std::int64_t> first(static_cast<std::size_t>(threads) + 1);
  std::int64_t n = 0;
  if (Status st = plan_batch_work(lens.data(), B, s.kv_heads, threads, split, items.data(),
                                  static_cast<std::int64_t>(items.size()), &n, first.data());
      !ok(st))
    return state.SkipWithError(status_message(st));
  const std::int64_t pf = attention_partial_floats(s);
  std::vector<float> storage(static_cast<std::size_t>(std::max<std::int64_t>(n, 1) * pf));
  std::vector<float> out(static_cast<std::size_t>(B * q_floats(s)));
  std::vector<Status> results(static_cast<std::size_t>(threads), Status::kOk);
  auto run_share = [&](std::int32_t t) {
    for (std::int64_t i = first[t]; i < first[t + 1]; ++i) {
      const Status st = batch_item_attention(f->views.data(), B, 0, items[i], f->q.data(), sc,
                                             attention_partial_from(storage.data() + i * pf, s));
      if (!ok(st)) results[t] = st;
    }
  };
  // Thread 0 is the benchmark thread; the others wait at a barrier for each step.
  std::barrier sync(threads);
  bool stop = false;
  std::vector<std::thread> workers;
  for (std::int32_t t = 1; t < threads; ++t)
    workers.emplace_back([&, t] {
      for (;;) {
        sync.arrive_and_wait();
        if (stop) return;
        run_share(t);
        sync.arrive_and_wait();
      }
    });
  auto step = [&]() -> Status {
    sync.arrive_and_wait();
    run_share(0);
    sync.arrive_and_wait();
    for (Status st : results)
      if (!ok(st)) return st;
    return merge_batch_partials(s, B, items.data(), n, storage.data(), out.data());
  };
  bool checked = ok(step());
  for (std::int32_t b = 0; checked && b < B; ++b)
    checked = close_to_reference(f->views[b], 0, lens[b], f->q.data() + b * q_floats(s),
                                 out.data() + b * q_floats(s), &error);
  if (checked) {
    const std::string name = std::string(ragged ? "ragged" : "uniform") + "_t" + std::to_string(threads);
    const bool by_rows = split == BatchSplit::kByRows;
    // Ratios: ragged vs uniform on one thread; two threads vs one on the same batch; the
    // per-sequence split vs the row split on the same batch and threads.
    std::string compare;
    if (!by_rows) compare = name;
    else if (threads > 1) compare = std::string(ragged ? "ragged" : "uniform") + "_t1";
    else if (ragged) compare = "uniform_t1";
    time_loop(state, batched_attention_cost(s, lens.data(), B), by_rows ? name : "", compare, step);
    // Rows of the busiest thread over the mean: 1.0 is a perfect split.
    std::int64_t total = 0, busiest = 0;
    for (std::int32_t t = 0; t < threads; ++t) {
      std::int64_t rows = 0;
      for (std::int64_t i = first[t]; i < first[t + 1]; ++i) rows += items[i].t1 - items[i].t0;
      total += rows;
      busiest = std::max(busiest, rows);
    }
    state.counters["imbalance"] = double(busiest) * threads / double(std::max<std::int64_t>(total, 1));
  } else {
    state.SkipWithError(error.empty() ? "batched step failed" : error.c_str());
  }
  stop = true;
  sync.arrive_and_wait();
  for (auto& w : workers) w.join();
}

// The ragged batch in one shared, fragmented pool (block 16, shuffled), run as work items.
void BM_BatchedPaged(benchmark::State& state, bool all_heads) {
  const auto& lens = batch_lengths(true);
  const auto B = static_cast<std::int32_t>(lens.size());
  constexpr std::int32_t kBlock = 16;
  PagedShape p;
  p.layers = 1;
  p.q_heads = 16;
  p.kv_heads = 8;
  p.head_dim = 128;
  p.block_size = kBlock;
  for (std::int64_t l : lens) p.num_blocks += (l + kBlock - 1) / kBlock;
  PagedGeometry geo;
  if (Status st = PagedGeometry::create(p, &geo); !ok(st)) return state.SkipWithError(status_message(st));
  Floats pool_data = alloc_floats(geo.slots().data_bytes() / 4);
  if (!pool_data) return state.SkipWithError("cannot allocate the pool");
  fill(pool_data.get(), geo.slots().data_bytes() / 4, 41);
  const PagedView pool{&geo, pool_data.get(), nullptr};
  std::vector<std::int32_t> order(static_cast<std::size_t>(p.num_blocks));
  assign_blocks(p.num_blocks, true, 43, order.data());
  std::vector<BlockTable> tables;
  std::int64_t next = 0;
  for (std::int64_t l : lens) {
    tables.push_back({order.data() + next, (l + kBlock - 1) / kBlock});
    next += tables.back().size;
  }
  const CacheShape s = layer_shape(1, 1);
  std::vector<float> q(static_cast<std::size_t>(B * q_floats(s))), out(q.size());
  fill(q.data(), B * q_floats(s), 9);
  // Per-head items (sequence, kv_head, range) or all-heads items (sequence, range).
  const std::int32_t plan_heads = all_heads ? 1 : s.kv_heads;
  const CacheShape part_shape = all_heads ? paged_all_heads_shape(p) : s;
  std::vector<BatchWorkItem> items(static_cast<std::size_t>(batch_work_items_bound(B, plan_heads, 1)));
  std::int64_t first[2], n = 0;
  if (Status st = plan_batch_work(lens.data(), B, plan_heads, 1, BatchSplit::kByRows, items.data(),
                                  static_cast<std::int64_t>(items.size()), &n, first);
      !ok(st))
    return state.SkipWithError(status_message(st));
  const std::int64_t pf = attention_partial_floats(part_shape);
  std::vector<float> storage(static_cast<std::size_t>(n * pf));
  std::vector<float> scratch(static_cast<std::size_t>(attention_partial_floats(s)));
  auto step = [&]() -> Status {
    for (std::int64_t i = 0; i < n; ++i) {
      const AttentionPartial part = attention_partial_from(storage.data() + i * pf, part_shape);
      const Status st =
          all_heads ? paged_batch_range_attention(pool, tables.data(), B, 0, items[i], q.data(),
                                                  scale_of(s), part, scratch.data())
                    : paged_batch_item_attention(pool, tables.data(), B, 0, items[i], q.data(),
                                                 scale_of(s), part, scratch.data());
      if (!ok(st)) return st;
    }
    return merge_batch_partials(part_shape, B, items.data(), n, storage.data(), out.data());
  };
  if (Status st = step(); !ok(st)) return state.SkipWithError(status_message(st));
  std::string error;
  for (std::int32_t b = 0; b < B; ++b) {  // check each sequence on a gathered head-major copy
    OwnedCache g;
    if (!ok(CacheGeometry::create(layer_shape(1, lens[b]), &g.geometry))) return state.SkipWithError("shape");
    g.data = hwy::AllocateAligned<std::uint8_t>(static_cast<std::size_t>(g.geometry.data_bytes()));
    for (KV kv : {KV::kKey, KV::kValue})
      for (std::int32_t h = 0; h < s.kv_heads; ++h)
        for (std::int64_t t = 0; t < lens[b]; ++t) {
          const std::int64_t slot = std::int64_t{tables[b].blocks[t / kBlock]} * kBlock + t % kBlock;
          std::memcpy(g.data.get() + g.geometry.byte_offset(0, kv, h, t),
                      reinterpret_cast<std::uint8_t*>(pool_data.get()) + geo.slots().byte_offset(0, kv, h, slot),
                      static_cast<std::size_t>(s.head_dim) * 4);
        }
    if (!close_to_reference(g.view(), 0, lens[b], q.data() + b * q_floats(s),
                            out.data() + b * q_floats(s), &error))
      return state.SkipWithError(error.c_str());
  }
  time_loop(state, batched_attention_cost(s, lens.data(), B), "", "ragged_t1", step);
}

// ---------------------------------------------------------------- cache management
struct ManageFixture {
  CacheGeometry g1024, g2048;
  hwy::AlignedFreeUniquePtr<std::uint8_t[]> work;    // repack in place: 2048-position buffer
  hwy::AlignedFreeUniquePtr<std::uint8_t[]> small;   // 1024-position cache (growth / clone source)
  hwy::AlignedFreeUniquePtr<std::uint8_t[]> big;     // 2048-position growth destination
  std::vector<hwy::AlignedFreeUniquePtr<std::uint8_t[]>> clones;
};
constexpr std::int32_t kClones = 4;

ManageFixture* manage_fixture(std::string* error) {
  auto& slot = section_slot<ManageFixture>();
  if (slot) return slot.get();
  release_sections();
  auto f = std::make_unique<ManageFixture>();
  CacheShape s = layer_shape(28, 1024);  // Qwen3-0.6B
  if (!ok(CacheGeometry::create(s, &f->g1024))) return nullptr;
  s.capacity = 2048;
  if (!ok(CacheGeometry::create(s, &f->g2048))) return nullptr;
  const auto bytes2 = static_cast<std::size_t>(f->g2048.data_bytes());
  const auto bytes1 = static_cast<std::size_t>(f->g1024.data_bytes());
  f->work = hwy::AllocateAligned<std::uint8_t>(bytes2);
  f->small = hwy::AllocateAligned<std::uint8_t>(bytes1);
  f->big = hwy::AllocateAligned<std::uint8_t>(bytes2);
  bool good = f->work && f->small && f->big;
  for (int i = 0; i < kClones && good; ++i) {
    f->clones.push_back(hwy::AllocateAligned<std::uint8_t>(bytes1));
    good = f->clones.back() != nullptr;
  }
  if (!good) {
    *error = "cannot allocate the cache-management buffers";
    return nullptr;
  }
  fill(reinterpret_cast<float*>(f->work.get()), static_cast<std::int64_t>(bytes2 / 4), 21);
  fill(reinterpret_cast<float*>(f->small.get()), static_cast<std::int64_t>(bytes1 / 4), 22);
  std::memset(f->big.get(), 0, bytes2);  // fault every page in before timing
  for (auto& c : f->clones) std::memset(c.get(), 0, bytes1);
  slot = std::move(f);
  return slot.get();
}

enum class Manage { kMemcpy, kRepack, kGrow, kClone };

void BM_Manage(benchmark::State& state, Manage what, StoreHint hint) {
  std::string error;
  ManageFixture* f = manage_fixture(&error);
  if (f == nullptr) return state.SkipWithError(error.c_str());
  const std::int64_t tokens = 1024;
  const CacheShape& s = f->g1024.shape();
  const CacheView small{&f->g1024, f->small.get(), nullptr};
  const CacheView big{&f->g2048, f->big.get(), nullptr};
  std::vector<CacheView> clones;
  for (auto& c : f->clones) clones.push_back({&f->g1024, c.get(), nullptr});
  const auto payload = static_cast<std::size_t>(f->g1024.data_bytes());  // 234,881,024 bytes
  bool shrink = true;
  std::function<Status()> body;
  Cost cost = cache_copy_cost(s, tokens);
  switch (what) {
    case Manage::kMemcpy:
      body = [&] { std::memcpy(f->big.get(), f->small.get(), payload); return Status::kOk; };
      break;
    case Manage::kRepack:  // alternate 2048 -> 1024 (runs move down) and 1024 -> 2048 (up)
      body = [&] {
        const Status st = shrink ? repack_in_place(f->g2048, f->g1024, tokens, f->work.get(), nullptr, hint)
                                 : repack_in_place(f->g1024, f->g2048, tokens, f->work.get(), nullptr, hint);
        shrink = !shrink;
        return st;
      };
      break;
    case Manage::kGrow:
      body = [&] { return copy_cache_prefix(small, big, tokens, hint); };
      break;
    case Manage::kClone:
      body = [&] { return clone_cache(small, clones.data(), kClones, tokens, hint); };
      cost = cost * kClones;
      break;
  }
  // Check: the moved rows must equal the source rows (a copy has no floating-point error).
  if (what != Manage::kMemcpy) {
    std::vector<std::uint8_t> before(static_cast<std::size_t>(f->g2048.data_bytes()));
    if (what == Manage::kRepack) std::memcpy(before.data(), f->work.get(), before.size());
    if (Status st = body(); !ok(st)) return state.SkipWithError(status_message(st));
    const CacheGeometry& src_geo = what == Manage::kRepack ? f->g2048 : f->g1024;
    const std::uint8_t* src = what == Manage::kRepack ? before.data() : f->small.get();
    const std::uint8_t* dst = what == Manage::kRepack ? f->work.get()
                              : what == Manage::kGrow ? f->big.get() : f->clones.back().get();
    const CacheGeometry& dst_geo = what == Manage::kGrow ? f->g2048 : f->g1024;
    for (std::int32_t l = 0; l < s.layers; ++l)
      for (KV kv : {KV::kKey, KV::kValue})
        for (std::int32_t h = 0; h < s.kv_heads; ++h)
          if (std::memcmp(src + src_geo.byte_offset(l, kv, h, 0), dst + dst_geo.byte_offset(l, kv, h, 0),
                          static_cast<std::size_t>(tokens * f->g1024.row_bytes())) != 0)
            return state.SkipWithError("moved rows differ from the source");
    if (what == Manage::kRepack && !ok(body())) return state.SkipWithError("repack back failed");
  }
  time_loop(state, cost, what == Manage::kMemcpy ? "memcpy" : "",
            what == Manage::kMemcpy ? "" : "memcpy", body);
  if (what == Manage::kClone) {  // per-clone ratio: the clone moves kClones times the bytes
    auto it = state.counters.find("x_memcpy");
    if (it != state.counters.end()) state.counters["x_memcpy_per_clone"] = it->second.value / kClones;
  }
  state.counters["MiB"] = static_cast<double>(cost.bytes_read) / double(1 << 20);
}

// ---------------------------------------------------------------- recompute vs cached
constexpr std::int32_t kHidden = 1024;  // Qwen3-0.6B
constexpr std::int64_t kMaxTokens = 4096;

struct RecomputeFixture {
  Floats x, wk, wv;  // [T][hidden], [hidden][kv*d] x2
};
RecomputeFixture* recompute_fixture() {
  auto& slot = section_slot<RecomputeFixture>();
  if (slot) return slot.get();
  release_sections();
  auto f = std::make_unique<RecomputeFixture>();
  const std::int64_t n = 8 * 128;
  f->x = alloc_floats(kMaxTokens * kHidden);
  f->wk = alloc_floats(kHidden * n);
  f->wv = alloc_floats(kHidden * n);
  fill(f->x.get(), kMaxTokens * kHidden, 31);
  fill(f->wk.get(), kHidden * n, 32);
  fill(f->wv.get(), kHidden * n, 33);
  const float w = 1.7f / std::sqrt(float(kHidden));  // K, V of order 1
  for (std::int64_t i = 0; i < kHidden * n; ++i) {
    f->wk[i] *= w;
    f->wv[i] *= w;
  }
  slot = std::move(f);
  return slot.get();
}

void BM_Recompute(benchmark::State& state, std::int64_t tokens, bool cached) {
  RecomputeFixture* f = recompute_fixture();
  const CacheShape s = layer_shape(1, tokens);
  const std::int64_t n = std::int64_t{s.kv_heads} * s.head_dim;
  std::string error;
  // The cache the cached path reads: every token's K/V projected once (as prefill would).
  OwnedCache cache;
  if (!ok(CacheGeometry::create(s, &cache.geometry))) return state.SkipWithError("shape");
  cache.data = hwy::AllocateAligned<std::uint8_t>(static_cast<std::size_t>(cache.geometry.data_bytes()));
  Floats k = alloc_floats(tokens * n), v = alloc_floats(tokens * n);
  if (!ok(gemm_f32(f->x.get(), f->wk.get(), k.get(), tokens, kHidden, n)) ||
      !ok(gemm_f32(f->x.get(), f->wv.get(), v.get(), tokens, kHidden, n)))
    return state.SkipWithError("projection failed");
  for (std::int64_t t = 0; t < tokens; ++t)
    if (!ok(append_token(cache.view(), 0, t, k.get() + t * n, v.get() + t * n)))
      return state.SkipWithError("append failed");
  std::vector<float> q(static_cast<std::size_t>(q_floats(s))), out(q.size());
  fill(q.data(), q_floats(s), 34);
  std::vector<float> ws(static_cast<std::size_t>(std::max(recompute_workspace_floats(s, tokens),
                                                          attention_partial_floats(s))));
  std::vector<float> krow(static_cast<std::size_t>(n)), vrow(krow.size());
  const float* x_last = f->x.get() + (tokens - 1) * kHidden;
  auto body = [&]() -> Status {
    if (!cached)
      return recompute_decode_attention(s, f->x.get(), tokens, kHidden, f->wk.get(), f->wv.get(),
                                        q.data(), scale_of(s), out.data(), ws.data());
    // Cached step: project the newest token only, append it (to its own slot), attend.
    if (Status st = gemm_f32(x_last, f->wk.get(), krow.data(), 1, kHidden, n); !ok(st)) return st;
    if (Status st = gemm_f32(x_last, f->wv.get(), vrow.data(), 1, kHidden, n); !ok(st)) return st;
    if (Status st = append_token(cache.view(), 0, tokens - 1, krow.data(), vrow.data()); !ok(st))
      return st;
    return decode_attention(cache.view(), 0, tokens, q.data(), scale_of(s), out.data(), ws.data());
  };
  if (Status st = body(); !ok(st)) return state.SkipWithError(status_message(st));
  if (!close_to_reference(cache.view(), 0, tokens, q.data(), out.data(), &error))
    return state.SkipWithError(error.c_str());
  const std::string me = (cached ? "cached" : "recompute") + std::to_string(tokens);
  time_loop(state, cached ? cached_projection_step_cost(s, kHidden, tokens)
                          : recompute_cost(s, kHidden, tokens),
            me, cached ? "" : "cached" + std::to_string(tokens), body);
  state.counters["GFLOP/s"] = benchmark::Counter(
      static_cast<double>((cached ? cached_projection_step_cost(s, kHidden, tokens)
                                  : recompute_cost(s, kHidden, tokens)).flops) * 1e-9,
      benchmark::Counter::kIsIterationInvariantRate);
}

void release_sections() {
  section_slot<PagedFixture>().reset();
  section_slot<ManageFixture>().reset();
  section_slot<RecomputeFixture>().reset();
}

// ---------------------------------------------------------------- registration
benchmark::internal::Benchmark* add(const std::string& name, auto fn, auto... args) {
  return benchmark::RegisterBenchmark(name.c_str(), fn, args...)
      ->UseRealTime()
      ->Unit(benchmark::kMicrosecond)
      ->MinTime(0.2);
}

void register_all() {
  const std::string ctx = "/ctx:" + std::to_string(kDramContext);
  add("paged/head_major" + ctx, BM_HeadMajor);
  add("paged/position_major" + ctx, BM_PositionMajor);
  for (std::int32_t bs : {16, 128})
    for (bool shuffled : {false, true})
      add("paged/block:" + std::to_string(bs) + (shuffled ? "/shuffled" : "/contiguous") + ctx,
          BM_Paged, bs, shuffled);
  for (std::int32_t tq : {1, 4, 8, 16}) add("chunked/tq:" + std::to_string(tq) + ctx, BM_Chunked, tq, false);
  for (std::int32_t tq : {4, 8})
    add("chunked/separate_calls/tq:" + std::to_string(tq) + ctx, BM_Chunked, tq, true);

  add("batched/uniform/threads:1", BM_Batched, false, 1, BatchSplit::kByRows);
  add("batched/ragged/threads:1", BM_Batched, true, 1, BatchSplit::kByRows);
  add("batched/uniform/threads:2/split:rows", BM_Batched, false, 2, BatchSplit::kByRows);
  add("batched/ragged/threads:2/split:rows", BM_Batched, true, 2, BatchSplit::kByRows);
  add("batched/ragged/threads:2/split:sequence", BM_Batched, true, 2, BatchSplit::kBySequence);
  add("batched/ragged_paged_block16_shuffled/items:per_head/threads:1", BM_BatchedPaged, false);
  add("batched/ragged_paged_block16_shuffled/items:all_heads/threads:1", BM_BatchedPaged, true);

  add("manage/memcpy", BM_Manage, Manage::kMemcpy, StoreHint::kAuto);
  for (StoreHint hint : {StoreHint::kCached, StoreHint::kStreaming}) {
    const std::string stores = hint == StoreHint::kCached ? "/stores:cached" : "/stores:streaming";
    add("manage/repack_in_place" + stores, BM_Manage, Manage::kRepack, hint);
    add("manage/grow_copy_1024_to_2048" + stores, BM_Manage, Manage::kGrow, hint);
    add("manage/clone_x" + std::to_string(kClones) + stores, BM_Manage, Manage::kClone, hint);
  }

  for (std::int64_t t = 128; t <= kMaxTokens; t *= 2) {
    add("recompute/cached/T:" + std::to_string(t), BM_Recompute, t, true);
    add("recompute/recompute/T:" + std::to_string(t), BM_Recompute, t, false);
  }
}

}  // namespace
}  // namespace kvb

int main(int argc, char** argv) {
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 2;
  kvb::register_all();
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  kvb::release_sections();
  return 0;
}
