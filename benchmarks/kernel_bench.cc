// kernel_bench: append of one token against a memcpy of the same bytes (append_vs_memcpy/*), and
// one-thread decode attention, fast (Highway, GQA-grouped) vs the scalar baseline,
// for every cache dtype (fp8 e4m3/e5m2 and int4 included) on one Qwen3-0.6B layer (16 q heads, 8 KV heads, head_dim 128).
// floor/*: the fast kernel on one KV head whose rows sit in L1 (16 and 64 positions) or L2 (512),
// G = 1, 2, 8: its own cost per cached position (s/pos), where memory sets no pace. That is what
// bounds the LLC-resident and the large-G rows (results/epyc-zen5-2c-kvm-508m/kernel-floor/).
// overlap/*: a plain read stream doing N FMAs per vector it reads, its arithmetic alone (L1) and
// from DRAM, with and without a 4 KB window: the share of the read rate that survives as much
// arithmetic per line as a kernel's floor/ row shows (results/xeon-emr-2c-kvm/overlap/).
// overlap_threads/*: its DRAM stream, with the window (pf:4096) and without (pf:0), on 1, 2, 4, ...
// and all PUs at once. read_streams/*: the same pass with fma:0 read as 1, 2 or 4 streams per
// core (streams:1 is overlap_threads/fma:0's loop).
//
// Working sets: context 64 (<= 0.5 MB per layer: L2), 1024 (<= 8 MB: L3) and 16384 with the
// layers rotated per iteration so the rotation spans >= 4x the L3 (and >= 256 MB): every
// iteration streams its layer from DRAM. Rates use CPU time (single thread: the time the
// kernel actually ran), which stays honest on a shared machine; wall time is printed beside it.
// GB/s counts the cost model's bytes (K and V rows, int8/fp8/int4 row scales, queries). Before timing, each kernel's output is checked against the double reference.
// The fast kernel prefetches with kvbench run's default hint (--sw-prefetch auto: PREFETCHT2 on
// AMD family 25), so these rows time the path kvbench's rows take; the label names it.
// --sw-prefetch=t0|t2|none picks another, as kvbench run's option does, so one binary can time
// the hints against each other; --slot-prefetch=auto|w|t0|none does the same for the int8
// append's request for its slot's lines (kernels/slot_prefetch.h), and --simd-target=NAME caps the
// dispatch as kvbench run's option does (the label names the target).
// With the rows in L2 (floor, 512 positions, G = 2) the Zen 4 guest ran faster with no software
// prefetch at all: time per position over T0's, medians of six alternating rounds (one build per
// hint), none fp32 0.79, bf16 0.79, fp16 0.84, int8 0.98;
// T2 0.89-1.03 (results/epyc-zen4-2c-kvm/floor-prefetch.txt); `perf record -e cpu-clock` put 22%
// of the T0 fp32 samples on its PREFETCHT0 loops. The window pays once the rows come from the L3 or
// DRAM (kernels/sw_prefetch.cc).
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <iterator>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <unistd.h>

#include "benchmark/benchmark.h"
#include "harness/ceiling_kernels.h"
#include "harness/ceilings.h"
#include "harness/chunk_claims.h"
#include "harness/error.h"
#include "harness/memory.h"
#include "harness/metadata.h"
#include "harness/thread_pool.h"
#include "harness/topology.h"
#include "kernels/attention.h"
#include "kernels/cache_write.h"
#include "kernels/cost_model.h"
#include "kernels/simd_target.h"
#include "kernels/slot_prefetch.h"
#include "kernels/sw_prefetch.h"

namespace kvb {
namespace {

// DRAM case: the layers rotated through span >= 4x the last-level cache (at least 256 MB), so
// each iteration's layer was evicted long ago. Some servers have L3s of hundreds of MB.
std::int64_t rotation_bytes() {
  const long l3 = sysconf(_SC_LEVEL3_CACHE_SIZE);
  return std::max<std::int64_t>(std::int64_t{256} << 20, 4 * std::int64_t{l3 > 0 ? l3 : 0});
}
constexpr std::int64_t kDramContext = 16384;
constexpr double kCheckTol = 1e-4;  // fp32 arithmetic vs double on the same (decoded) cache

// A filled cache of one shape, kept alive across the fast and scalar runs that share it.
struct BenchCache {
  CacheShape shape;
  CacheGeometry geometry;
  // Allocated as kvbench run's caches and the ceilings' working sets are (2 MiB-aligned, huge
  // pages asked for), so the GB/s here compare with theirs: on 4 KB pages a stream pays a TLB
  // miss every 4 KB, which cost a synthetic of the fp32 kernel's access pattern on the Zen 4
  // guest 0.78-0.93x of its DRAM rate, by access pattern (results/epyc-zen4-2c-kvm/kernel-rate/
  // knockout.md). Rows say whether the kernel granted them (huge_pages: 1 yes, 0 no, -1 unknown).
  Buffer data;
  ThpState thp = ThpState::kUnknown;  // read once the cache is filled
  std::vector<float> scales;
  CacheView view() {
    return {&geometry, static_cast<std::uint8_t*>(data.data()), scales.empty() ? nullptr : scales.data()};
  }
};

// Cheap deterministic fill: filling 256 MB with <random> would dominate the run.
struct Lcg {
  std::uint64_t s;
  float next() {
    s = s * 6364136223846793005ull + 1442695040888963407ull;
    return static_cast<float>(static_cast<std::int64_t>(s >> 40) - (1 << 23)) / float(1 << 23);
  }
};

// One layer of `kv_heads` KV heads (head_dim 128) holding `context` positions.
CacheShape one_layer(DType dtype, std::int32_t q_heads, std::int32_t kv_heads, std::int64_t context) {
  CacheShape s;
  s.layers = 1;
  s.q_heads = q_heads;
  s.kv_heads = kv_heads;
  s.head_dim = 128;
  s.capacity = context;
  s.dtype = dtype;
  return s;
}

// A Qwen3-0.6B layer (8 KV heads); DRAM contexts rotate over enough layers to miss every cache.
CacheShape layer_shape(DType dtype, std::int32_t q_heads, std::int64_t context) {
  CacheShape s = one_layer(dtype, q_heads, 8, context);
  if (context >= kDramContext) {
    const std::int64_t per_layer = kv_cache_bytes(1, s.kv_heads, context, s.head_dim, dtype);
    s.layers = static_cast<std::int32_t>(std::max<std::int64_t>(2, (rotation_bytes() + per_layer - 1) / per_layer));
  }
  return s;
}

bool same_storage(const CacheShape& a, const CacheShape& b) {
  return a.layers == b.layers && a.kv_heads == b.kv_heads && a.head_dim == b.head_dim &&
         a.capacity == b.capacity && a.dtype == b.dtype && a.layout == b.layout &&
         a.pad_rows == b.pad_rows;
}

// The machine's topology, discovered once (the caches' allocations and --sw-prefetch auto).
const Topology& topology() {
  static const std::unique_ptr<Topology> topo = Topology::discover();
  return *topo;
}

// Returns a filled cache for `shape`, reusing the previous one when only q_heads differs (one
// cache at a time, so memory stays bounded).
BenchCache* get_cache(const CacheShape& shape, std::string* error) {
  // Before the cache: statics are destroyed in reverse, and the cache's Buffer frees through it.
  const Topology& topo = topology();
  static std::unique_ptr<BenchCache> cache;
  if (cache && same_storage(cache->shape, shape)) {
    cache->shape = shape;
    if (Status st = CacheGeometry::create(shape, &cache->geometry); !ok(st)) {
      *error = status_message(st);
      return nullptr;
    }
    return cache.get();
  }
  cache.reset();
  auto c = std::make_unique<BenchCache>();
  c->shape = shape;
  if (Status st = CacheGeometry::create(shape, &c->geometry); !ok(st)) {
    *error = status_message(st);
    return nullptr;
  }
  try {
    c->data = Buffer(topo, static_cast<std::size_t>(c->geometry.data_bytes()), Placement{});
  } catch (const HarnessError& e) {
    *error = e.what();
    return nullptr;
  }
  c->scales.resize(static_cast<std::size_t>(c->geometry.scale_bytes() / sizeof(float)));
  Lcg rng{42};
  std::vector<float> k(static_cast<std::size_t>(shape.kv_heads) * shape.capacity * shape.head_dim);
  std::vector<float> v(k.size());
  for (std::int32_t l = 0; l < shape.layers; ++l) {
    for (float& x : k) x = rng.next();
    for (float& x : v) x = rng.next();
    if (Status st = prefill_copy(c->view(), l, 0, shape.capacity, k.data(), v.data()); !ok(st)) {
      *error = status_message(st);
      return nullptr;
    }
  }
  c->thp = c->data.thp();
  cache = std::move(c);
  return cache.get();
}

enum class Kernel { kFast, kScalar };

// Runs the kernel once on layer 0 and compares it with the double reference.
bool check(BenchCache& c, const std::vector<float>& q, Kernel kernel, float scale,
           std::string* error) {
  const CacheShape& s = c.shape;
  const std::size_t n = static_cast<std::size_t>(s.q_heads) * s.head_dim;
  std::vector<float> out(n), ws(static_cast<std::size_t>(attention_partial_floats(s)));
  std::vector<double> ref(n), rws(static_cast<std::size_t>(s.capacity));
  const Status st = kernel == Kernel::kFast
                        ? decode_attention(c.view(), 0, s.capacity, q.data(), scale, out.data(), ws.data())
                        : decode_attention_scalar(c.view(), 0, s.capacity, q.data(), scale, out.data());
  if (!ok(st) || !ok(decode_attention_reference(c.view(), 0, s.capacity, q.data(), scale,
                                                ref.data(), rws.data()))) {
    *error = status_message(st);
    return false;
  }
  double worst = 0;
  for (std::size_t i = 0; i < n; ++i) worst = std::max(worst, std::fabs(out[i] - ref[i]));
  if (!(worst <= kCheckTol)) {
    char buf[128];
    std::snprintf(buf, sizeof(buf), "output differs from the double reference by %g", worst);
    *error = buf;
    return false;
  }
  return true;
}

void BM_DecodeAttention(benchmark::State& state, Kernel kernel, CacheShape shape, std::int64_t context) {
  std::string error;
  BenchCache* c = get_cache(shape, &error);
  const float scale = 1.0f / std::sqrt(float(shape.head_dim));
  std::vector<float> q(static_cast<std::size_t>(shape.q_heads) * shape.head_dim);
  Lcg rng{7};
  for (float& x : q) x = 2.0f * rng.next();
  if (c == nullptr || !check(*c, q, kernel, scale, &error)) {
    state.SkipWithError(error.c_str());
    return;
  }
  const std::size_t n = static_cast<std::size_t>(shape.q_heads) * shape.head_dim;
  std::vector<float> out(n), ws(static_cast<std::size_t>(attention_partial_floats(shape)));
  std::int32_t layer = 0;
  for (auto _ : state) {
    const Status st =
        kernel == Kernel::kFast
            ? decode_attention(c->view(), layer, context, q.data(), scale, out.data(), ws.data())
            : decode_attention_scalar(c->view(), layer, context, q.data(), scale, out.data());
    if (!ok(st)) {
      state.SkipWithError(status_message(st));
      break;
    }
    benchmark::DoNotOptimize(out.data());
    benchmark::ClobberMemory();
    layer = layer + 1 == shape.layers ? 0 : layer + 1;
  }
  const Cost cost = attention_cost(shape, context);
  state.counters["GB/s"] = benchmark::Counter(static_cast<double>(cost.bytes_read) * 1e-9,
                                              benchmark::Counter::kIsIterationInvariantRate);
  state.counters["s/pos"] = benchmark::Counter(static_cast<double>(context) * shape.kv_heads,
                                               benchmark::Counter::kIsIterationInvariantRate |
                                                   benchmark::Counter::kInvert);
  state.counters["kv_MB"] = static_cast<double>(c->geometry.kv_bytes_per_layer(context)) * 1e-6;
  state.counters["layers"] = shape.layers;
  state.counters["huge_pages"] = c->thp == ThpState::kYes ? 1 : c->thp == ThpState::kNo ? 0 : -1;
  state.SetLabel(kernel == Kernel::kFast ? kernel_isa() : "scalar");
}

// Appending one token into every layer of a Qwen3-0.6B cache against a plain memcpy of the same
// encoded bytes (rows and row scales) into the same slots of the cache layout, interleaved in one
// run and alternating which goes first. Each writes its own half of the positions, token after
// token like a decode does, so neither finds lines the other just fetched: append_over_memcpy is
// the append's cost over the stores it cannot avoid. The benchmark's own time is the append's.
void BM_AppendVsMemcpy(benchmark::State& state, DType dtype) {
  const CacheShape s{.layers = 28, .q_heads = 16, .kv_heads = 8, .head_dim = 128, .capacity = 1024, .dtype = dtype};
  CacheGeometry geo;
  if (Status st = CacheGeometry::create(s, &geo); !ok(st)) {
    state.SkipWithError(status_message(st));
    return;
  }
  // The same allocation as the attention rows' caches (get_cache) and kvbench run's.
  Buffer buffer;
  try {
    buffer = Buffer(topology(), static_cast<std::size_t>(geo.data_bytes()), Placement{});
  } catch (const HarnessError& e) {
    state.SkipWithError(e.what());
    return;
  }
  auto* data = static_cast<std::uint8_t*>(buffer.data());
  std::vector<float> scales(static_cast<std::size_t>(geo.scale_bytes() / sizeof(float)));
  std::memset(data, 0, static_cast<std::size_t>(geo.data_bytes()));  // fault every page in
  const CacheView view{&geo, data, scales.empty() ? nullptr : scales.data()};
  const bool scaled = dtype_has_row_scale(dtype);
  const std::int64_t rb = dtype_row_bytes(dtype, s.head_dim);
  Lcg rng{11};
  std::vector<float> k(static_cast<std::size_t>(s.kv_heads) * s.head_dim), v(k.size());
  for (float& x : k) x = rng.next();
  for (float& x : v) x = rng.next();

  // The memcpy source: the encoded rows the append produces (every layer gets the same token).
  if (!ok(append_token(view, 0, 0, k.data(), v.data()))) {
    state.SkipWithError("append_token failed");
    return;
  }
  std::vector<std::uint8_t> enc(static_cast<std::size_t>(2 * s.kv_heads * rb));
  std::vector<float> enc_scale(static_cast<std::size_t>(2 * s.kv_heads));
  for (KV kv : {KV::kKey, KV::kValue})
    for (std::int32_t h = 0; h < s.kv_heads; ++h) {
      const std::size_t i = static_cast<std::size_t>((kv == KV::kKey ? 0 : s.kv_heads) + h);
      std::memcpy(&enc[i * rb], data + geo.byte_offset(0, kv, h, 0), static_cast<std::size_t>(rb));
      if (scaled) enc_scale[i] = scales[static_cast<std::size_t>(geo.scale_index(0, kv, h, 0))];
    }
  auto copy_token = [&](std::int64_t pos) {
    for (std::int32_t l = 0; l < s.layers; ++l)
      for (KV kv : {KV::kKey, KV::kValue})
        for (std::int32_t h = 0; h < s.kv_heads; ++h) {
          const std::size_t i = static_cast<std::size_t>((kv == KV::kKey ? 0 : s.kv_heads) + h);
          std::memcpy(data + geo.byte_offset(l, kv, h, pos), &enc[i * rb], static_cast<std::size_t>(rb));
          if (scaled) scales[static_cast<std::size_t>(geo.scale_index(l, kv, h, pos))] = enc_scale[i];
        }
  };
  auto append_all = [&](std::int64_t pos) {
    Status st = Status::kOk;
    for (std::int32_t l = 0; l < s.layers && ok(st); ++l) st = append_token(view, l, pos, k.data(), v.data());
    return st;
  };

  using Clock = std::chrono::steady_clock;
  double append_s = 0, copy_s = 0;
  const std::int64_t half = s.capacity / 2;
  std::int64_t i = 0, pos = 0;
  for (auto _ : state) {
    pos = i % half;
    const bool append_first = (i & 1) == 0;
    Status st = Status::kOk;
    const auto t0 = Clock::now();
    if (append_first) st = append_all(pos); else copy_token(half + pos);
    const auto t1 = Clock::now();
    if (append_first) copy_token(half + pos); else st = append_all(pos);
    const auto t2 = Clock::now();
    benchmark::ClobberMemory();
    if (!ok(st)) {
      state.SkipWithError(status_message(st));
      return;
    }
    const double a = std::chrono::duration<double>(append_first ? t1 - t0 : t2 - t1).count();
    append_s += a;
    copy_s += std::chrono::duration<double>(append_first ? t2 - t1 : t1 - t0).count();
    state.SetIterationTime(a);
    ++i;
  }
  // The append's bytes at the last position are exactly the memcpy's (same encoder, same token).
  if (!ok(append_all(pos))) {
    state.SkipWithError("append_token failed");
    return;
  }
  for (std::int32_t l = 0; l < s.layers; ++l)
    for (KV kv : {KV::kKey, KV::kValue})
      for (std::int32_t h = 0; h < s.kv_heads; ++h) {
        const std::size_t j = static_cast<std::size_t>((kv == KV::kKey ? 0 : s.kv_heads) + h);
        if (std::memcmp(data + geo.byte_offset(l, kv, h, pos), &enc[j * rb], static_cast<std::size_t>(rb)) != 0) {
          state.SkipWithError("appended row differs from the encoded token");
          return;
        }
      }
  const double n = static_cast<double>(std::max<std::int64_t>(i, 1));
  state.counters["append_us"] = append_s / n * 1e6;
  state.counters["memcpy_us"] = copy_s / n * 1e6;
  state.counters["append_over_memcpy"] = copy_s > 0 ? append_s / copy_s : 0.0;
  state.SetLabel(kernel_isa());  // names the slot request (+SLOT-T0 / +SLOT-NONE where not w)
  state.counters["GB/s"] = benchmark::Counter(static_cast<double>(append_cost(s).bytes_written) * 1e-9 * s.layers,
                                              benchmark::Counter::kIsIterationInvariantRate);
}

// How much of one core's read bandwidth survives arithmetic per byte (harness ceiling_read_fma):
// a plain stream with `fmas` FMAs on every vector it reads, from L1 (16 KiB, 64 passes per
// iteration: the arithmetic's own time) and from DRAM (one pass over as many bytes as the
// attention rows rotate through), without a software window or with one prefetch_bytes ahead
// (4096: the attention kernels' kPrefetchBytes). A kernel whose rows take x ns per line from L2
// (floor/) does about as much work per line as the overlap/ row whose L1 time is x; that row's
// DRAM rate over its fma:0 row's is what a stream doing that much work keeps of the read rate.
const float* overlap_buffer(std::int64_t bytes, ThpState* thp, std::string* error) {
  static Buffer small, large;
  static ThpState large_thp = ThpState::kUnknown;
  Buffer& b = bytes <= (std::int64_t{1} << 20) ? small : large;
  if (b.data() == nullptr || static_cast<std::int64_t>(b.size()) != bytes) {
    try {
      b = Buffer(topology(), static_cast<std::size_t>(bytes), Placement{});
    } catch (const HarnessError& e) {
      *error = e.what();
      return nullptr;
    }
    float* f = static_cast<float*>(b.data());
    std::fill(f, f + bytes / static_cast<std::int64_t>(sizeof(float)), 1.0f);  // faults the pages in
    if (&b == &large) large_thp = b.thp();
  }
  *thp = &b == &large ? large_thp : ThpState::kUnknown;
  return static_cast<const float*>(b.data());
}

void BM_ReadUnderFma(benchmark::State& state, int fmas, std::int64_t prefetch_bytes, bool dram) {
  const std::int64_t bytes = dram ? rotation_bytes() : std::int64_t{16} << 10;
  const std::int64_t passes = dram ? 1 : 64;
  std::string error;
  ThpState thp = ThpState::kUnknown;
  const float* p = overlap_buffer(bytes, &thp, &error);
  if (p == nullptr) {
    state.SkipWithError(error.c_str());
    return;
  }
  const std::int64_t n = bytes / static_cast<std::int64_t>(sizeof(float));
  // Every element is 1.0: the sums come to n, and with FMAs each chain lane settles at 2.0.
  const float once = ceiling_read_fma(p, n, fmas, prefetch_bytes);
  const double want = static_cast<double>(n) + (fmas > 0 ? 2.0 * static_cast<double>(ceiling_block_floats()) : 0.0);
  if (!(std::fabs(static_cast<double>(once) - want) <= 1e-3 * want)) {
    state.SkipWithError("ceiling_read_fma returned a wrong sum");
    return;
  }
  for (auto _ : state) {
    float acc = 0;
    for (std::int64_t r = 0; r < passes; ++r) acc += ceiling_read_fma(p, n, fmas, prefetch_bytes);
    benchmark::DoNotOptimize(acc);
  }
  const double lines = static_cast<double>(bytes * passes) / 64.0;
  state.counters["GB/s"] = benchmark::Counter(static_cast<double>(bytes * passes) * 1e-9,
                                              benchmark::Counter::kIsIterationInvariantRate);
  state.counters["s/line"] = benchmark::Counter(lines, benchmark::Counter::kIsIterationInvariantRate |
                                                           benchmark::Counter::kInvert);
  const double vectors_per_line = 64.0 / (static_cast<double>(ceiling_block_floats()) / 8.0 * sizeof(float));
  state.counters["fma/line"] = fmas * vectors_per_line;
  if (dram) state.counters["huge_pages"] = thp == ThpState::kYes ? 1 : thp == ThpState::kNo ? 0 : -1;
  state.SetLabel(std::string(ceiling_target_name()) + (prefetch_bytes > 0 ? "+PF-T0" : "+PF-NONE"));
}

// The DRAM stream of overlap/ on `threads` pinned workers at once (compact, as kvbench run
// pins), over slices first-touched by their workers and read in kClaimChunkBytes chunks shared
// out as the DRAM read ceiling shares its own (harness/chunk_claims): a worker the host slows
// down reads fewer chunks instead of holding the rest up. With many cores each gets a smaller
// share of the bandwidth, so each line leaves more time for the arithmetic. pf:4096 has the
// kernels' window and hint (T2 where --sw-prefetch picks it; T0 before 2026-12-06), pf:0 none:
// fma:0/pf:0 is the DRAM read ceiling's plain loop, so the rows say how much of the ceiling a
// stream keeps once it does work or prefetches. With the window, 4-8 FMAs per vector kept
// 0.81-0.96 of it on the Zen 5 guest (1-2 threads) and the EMR host (1-16); without, 0.56-0.75
// on the EMR host (2026-12-03, results/*/stream-work/). Wall time.
// With `streams` > 0 (fmas 0 only, read_streams/ rows) each worker reads that many parts of its
// slice at once (harness ceiling_read_streams), a chunk of each per claim: several streams per
// core, as the kernels read K and V, against the one stream of the fma:0 rows.
void BM_ReadUnderFmaThreads(benchmark::State& state, int fmas, std::int64_t prefetch_bytes, int threads,
                            int streams) {
  static std::unique_ptr<ThreadPool> pool;
  static Buffer buffer;
  const std::int64_t chunk = kClaimChunkBytes / static_cast<std::int64_t>(sizeof(float));
  // Four chunks a slice at least, so that every stream's part is whole chunks.
  const std::int64_t slice = rotation_bytes() / static_cast<std::int64_t>(sizeof(float)) / threads / (4 * chunk) * (4 * chunk);
  try {
    if (!pool || pool->size() != threads) {
      pool.reset();
      pool = std::make_unique<ThreadPool>(topology(), threads, PinPolicy{});
      buffer = Buffer(topology(), static_cast<std::size_t>(slice * threads) * sizeof(float), Placement{});
      float* f = static_cast<float*>(buffer.data());
      pool->run([&](int w) { std::fill(f + w * slice, f + (w + 1) * slice, 1.0f); });
    }
  } catch (const HarnessError& e) {
    state.SkipWithError(e.what());
    return;
  }
  const float* p = static_cast<const float*>(buffer.data());
  const std::int64_t chunks = slice / chunk * threads;  // worker w's block: its own slice's chunks
  const int parts = std::max(streams, 1);
  const std::int64_t claims_per_slice = slice / chunk / parts;  // a claim reads a chunk of every part
  ChunkClaims claims = ChunkClaims::even(chunks / parts, threads);
  std::vector<double> sums(static_cast<std::size_t>(threads) * 8);  // a cache line per worker
  const bool t2 = sw_prefetch() == SwPrefetch::kT2;  // the kernels' hint, as the read ceiling's window
  auto read_claim = [&](std::int64_t c) -> double {
    if (streams == 0) return ceiling_read_fma(p + c * chunk, chunk, fmas, prefetch_bytes, t2);
    const float* a = p + c / claims_per_slice * slice + c % claims_per_slice * chunk;
    return ceiling_read_streams(a, claims_per_slice * chunk, streams, chunk, prefetch_bytes, t2);
  };
  auto pass = [&] {
    claims.reset_all();  // ordered before the claims by the dispatch
    pool->run([&](int w) {
      double acc = 0;
      claims.claim(w, [&](std::int64_t c) { acc += read_claim(c); });
      sums[static_cast<std::size_t>(w) * 8] = acc;
    });
  };
  pass();
  // Every element is 1.0; each call's chains settle at 2.0 per lane.
  const double want = static_cast<double>(chunks) *
                      (static_cast<double>(chunk) + (fmas > 0 ? 2.0 * static_cast<double>(ceiling_block_floats()) : 0.0));
  double got = 0;
  for (int w = 0; w < threads; ++w) got += sums[static_cast<std::size_t>(w) * 8];
  if (!(std::fabs(got - want) <= 1e-6 * want)) {
    state.SkipWithError("the read loop returned a wrong sum");
    return;
  }
  for (auto _ : state) {
    pass();
    benchmark::DoNotOptimize(sums.data());
  }
  const double bytes = static_cast<double>(chunks * chunk) * sizeof(float);
  state.counters["GB/s"] = benchmark::Counter(bytes * 1e-9, benchmark::Counter::kIsIterationInvariantRate);
  state.counters["GB/s/thread"] = benchmark::Counter(bytes * 1e-9 / threads, benchmark::Counter::kIsIterationInvariantRate);
  state.SetLabel(std::string(ceiling_target_name()) + (prefetch_bytes == 0 ? "+PF-NONE" : t2 ? "+PF-T2" : "+PF-T0"));
}

benchmark::internal::Benchmark* add(const std::string& name, Kernel kernel, const CacheShape& shape,
                                    std::int64_t context) {
  return benchmark::RegisterBenchmark(name.c_str(), BM_DecodeAttention, kernel, shape, context)
      ->Unit(benchmark::kMicrosecond);
}
benchmark::internal::Benchmark* add(const std::string& name, Kernel kernel, DType dtype,
                                    std::int32_t q_heads, std::int64_t context) {
  return add(name, kernel, layer_shape(dtype, q_heads, context), context);
}

const char* kernel_name(Kernel k) { return k == Kernel::kFast ? "fast" : "scalar"; }

// Ordered so that benchmarks sharing a cache run back to back (each DRAM cache is GBs to fill).
void register_all() {
  for (DType dtype : kExtendedDTypes)
    benchmark::RegisterBenchmark((std::string("append_vs_memcpy/") + dtype_name(dtype)).c_str(),
                                 BM_AppendVsMemcpy, dtype)
        ->UseManualTime()
        ->Unit(benchmark::kMicrosecond);
  for (std::int64_t prefetch_bytes : {std::int64_t{0}, std::int64_t{4096}})
    for (int fmas : ceiling_read_fma_counts)
      for (bool dram : {false, true})
        benchmark::RegisterBenchmark(("overlap/fma:" + std::to_string(fmas) + "/pf:" + std::to_string(prefetch_bytes) +
                                      (dram ? "/DRAM" : "/L1")).c_str(),
                                     BM_ReadUnderFma, fmas, prefetch_bytes, dram)
            ->Unit(benchmark::kMillisecond);
  const int pus = static_cast<int>(topology().pus().size());
  for (int threads = 1;; threads = std::min(2 * threads, pus)) {
    for (std::int64_t prefetch_bytes : {std::int64_t{4096}, std::int64_t{0}})
      for (int fmas : ceiling_read_fma_counts)
        benchmark::RegisterBenchmark(("overlap_threads/fma:" + std::to_string(fmas) + "/threads:" +
                                      std::to_string(threads) + "/pf:" + std::to_string(prefetch_bytes)).c_str(),
                                     BM_ReadUnderFmaThreads, fmas, prefetch_bytes, threads, 0)
            ->UseRealTime()
            ->Unit(benchmark::kMillisecond);
    for (std::int64_t prefetch_bytes : {std::int64_t{4096}, std::int64_t{0}})
      for (int streams : ceiling_read_stream_counts)
        benchmark::RegisterBenchmark(("read_streams/streams:" + std::to_string(streams) + "/threads:" +
                                      std::to_string(threads) + "/pf:" + std::to_string(prefetch_bytes)).c_str(),
                                     BM_ReadUnderFmaThreads, 0, prefetch_bytes, threads, streams)
            ->UseRealTime()
            ->Unit(benchmark::kMillisecond);
    if (threads == pus) break;
  }
  for (DType dtype : kAllDTypes)
    for (std::int32_t g : {1, 2, 8})
      for (std::int64_t context : {std::int64_t{16}, std::int64_t{64}, std::int64_t{512}})
        add(std::string("floor/") + dtype_name(dtype) + "/G:" + std::to_string(g) + "/ctx:" +
                std::to_string(context),
            Kernel::kFast, one_layer(dtype, g, 1, context), context);
  for (std::int64_t context : {std::int64_t{64}, std::int64_t{1024}})
    for (DType dtype : kExtendedDTypes)
      for (Kernel kernel : {Kernel::kFast, Kernel::kScalar})
        add(std::string(kernel_name(kernel)) + "/" + dtype_name(dtype) + "/ctx:" +
                std::to_string(context),
            kernel, dtype, 16, context);
  for (DType dtype : kExtendedDTypes) {
    const std::string ctx = "/ctx:" + std::to_string(kDramContext);
    for (Kernel kernel : {Kernel::kFast, Kernel::kScalar})
      add(std::string(kernel_name(kernel)) + "/" + dtype_name(dtype) + ctx, kernel, dtype, 16,
          kDramContext);
    if (std::find(std::begin(kAllDTypes), std::end(kAllDTypes), dtype) == std::end(kAllDTypes))
      continue;  // the group sweep covers the core dtypes only (keeps the run short)
    // Group size at fixed kv_heads (G = 1, 2, 4, 8): each row is read once whatever G is, so
    // while the kernel is bandwidth-bound the time per step barely grows with G.
    for (std::int32_t g : {1, 2, 4, 8})
      add(std::string("fast_group/") + dtype_name(dtype) + ctx + "/G:" + std::to_string(g),
          Kernel::kFast, dtype, 8 * g, kDramContext);
  }
}

}  // namespace
}  // namespace kvb

int main(int argc, char** argv) {
  benchmark::Initialize(&argc, argv);
  // --sw-prefetch=HINT, --slot-prefetch=REQUEST and --simd-target=NAME, taken out of argv before
  // Google Benchmark refuses flags it does not know.
  std::string hint = "auto", request = "auto", target = "best";
  for (int i = 1; i < argc;) {
    std::string* value = nullptr;
    std::string_view arg = argv[i];
    for (auto [flag, out] : {std::pair<std::string_view, std::string*>{"--sw-prefetch=", &hint},
                             std::pair<std::string_view, std::string*>{"--slot-prefetch=", &request},
                             std::pair<std::string_view, std::string*>{"--simd-target=", &target}}) {
      if (arg.substr(0, flag.size()) == flag) {
        value = out;
        arg.remove_prefix(flag.size());
      }
    }
    if (value == nullptr) {
      ++i;
      continue;
    }
    *value = std::string(arg);
    std::copy(argv + i + 1, argv + argc, argv + i);
    argv[--argc] = nullptr;
  }
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 2;
  // As kvbench run --simd-target: every kernel and loop below dispatches to at most that target.
  if (target != "best" && !kvb::limit_simd_target(target)) {
    std::fprintf(stderr, "kernel_bench: bad value '%s' for --simd-target: expected best, %s\n", target.c_str(),
                 kvb::runnable_simd_target_list().c_str());
    return 2;
  }
  // The attention rows time the code path kvbench run takes (by default --sw-prefetch auto), the
  // append rows its slot request (--slot-prefetch auto); their label is the CSV's isa
  // ("AVX3+PF-T2" where the hint is not T0, "+SLOT-T0" where the request is not w).
  const kvb::CpuFamily cpu = kvb::cpu_family(kvb::topology());  // both settings' auto
  kvb::SwPrefetch prefetch = kvb::SwPrefetch::kT0;
  if (hint == "auto") {
    prefetch = kvb::tuned_sw_prefetch(cpu.vendor, cpu.family);
  } else if (!kvb::parse_sw_prefetch(hint, &prefetch)) {
    std::fprintf(stderr,
                 "kernel_bench: bad value '%s' for --sw-prefetch: expected auto, t0, t2 or none\n",
                 hint.c_str());
    return 2;
  }
  kvb::SlotPrefetch slot = kvb::SlotPrefetch::kWrite;
  if (request == "auto") {
    slot = kvb::tuned_slot_prefetch(cpu.vendor, cpu.family);
  } else if (!kvb::parse_slot_prefetch(request, &slot)) {
    std::fprintf(stderr,
                 "kernel_bench: bad value '%s' for --slot-prefetch: expected auto, w, t0 or none\n",
                 request.c_str());
    return 2;
  }
  kvb::set_slot_prefetch(slot);
  kvb::set_sw_prefetch(prefetch);
  kvb::register_all();
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
