#include "harness/parallel_decode.h"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstring>
#include <new>
#include <utility>

#include "harness/chunk_claims.h"
#include "harness/counters.h"
#include "harness/deterministic_values.h"
#include "harness/error.h"
#include "harness/sde_events.h"
#include "harness/thread_pool.h"
#include "harness/tick_clock.h"
#include "kernels/attention.h"
#include "kernels/cache_write.h"
#include "kernels/codecs.h"
#include "kernels/row_encode.h"

namespace kvb {
namespace {

constexpr std::int64_t kAlignFloats = 16;  // 64-byte alignment of every partial

struct AlignedFloats {
  float* p = nullptr;
  explicit AlignedFloats(std::size_t n) : p(new (std::align_val_t(64)) float[n]) {}
  ~AlignedFloats() { ::operator delete[](p, std::align_val_t(64)); }
  AlignedFloats(const AlignedFloats&) = delete;
  AlignedFloats& operator=(const AlignedFloats&) = delete;
};

}  // namespace

std::vector<std::vector<WorkItem>> partition_decode(std::int32_t kv_heads, std::int64_t context, int threads) {
  std::vector<std::vector<WorkItem>> plan(static_cast<std::size_t>(std::max(threads, 0)));
  if (kv_heads <= 0 || context <= 0 || threads <= 0) return plan;
  const std::int64_t total = std::int64_t{kv_heads} * context;
  for (int w = 0; w < threads; ++w) {
    std::int64_t a = total * w / threads;
    const std::int64_t b = total * (w + 1) / threads;
    while (a < b) {
      const std::int32_t h = static_cast<std::int32_t>(a / context);
      const std::int64_t t0 = a % context;
      const std::int64_t t1 = std::min<std::int64_t>(context, t0 + (b - a));
      plan[static_cast<std::size_t>(w)].push_back({h, t0, t1});
      a += t1 - t0;
    }
  }
  return plan;
}

std::vector<WorkItem> chunk_decode(std::int32_t kv_heads, std::int64_t context, int threads) {
  std::vector<WorkItem> chunks;
  if (kv_heads <= 0 || context <= 0 || threads <= 0) return chunks;
  const std::int64_t per_head = (kChunksPerWorker * threads + kv_heads - 1) / kv_heads;
  std::int64_t k = std::max<std::int64_t>(1, std::min(per_head, context / kMinChunkRows));
  if (k * kv_heads < threads) k = (threads + kv_heads - 1) / kv_heads;
  k = std::min(k, context);  // no empty pieces
  for (std::int32_t h = 0; h < kv_heads; ++h)
    for (std::int64_t i = 0; i < k; ++i) chunks.push_back({h, context * i / k, context * (i + 1) / k});
  return chunks;
}

struct ParallelDecode::Impl {
  ThreadPool* pool = nullptr;
  CacheView cache{};
  CacheShape shape{};
  std::int64_t context = 0;
  int T = 0, L = 0, H = 0, G = 0, d = 0;
  std::int64_t qsize = 0;  // q_heads * head_dim
  float scale = 0;
  std::vector<std::vector<WorkItem>> plan;

  struct Worker {
    std::vector<WorkItem> items;                   // static partition: first touch of the rows
    std::vector<std::int32_t> merge_heads;         // heads this worker merges
    std::int32_t append_first = 0, append_heads = 0;  // KV heads of each layer's token it appends
    Cost step_share, attention_share, append_share, memcpy_share;  // cost-model shares fed to the SDEs
  };
  std::vector<Worker> workers;
  std::vector<WorkItem> chunks;                    // claimed dynamically, per layer
  // Per chunk, the prefetch_to of its attention_partial call: the end of the next chunk where
  // that one goes on with the same head's rows in the same block (the claimer's next claim from
  // that block, unless another worker takes it first), else the chunk's own end. Without it each
  // chunk started with an empty 4 KB window: at 16 threads a chunk is 292 rows, so 3-11% of them
  // (fp32 to int8) went unprefetched. On the 16-vCPU EMR host (results/xeon-emr-16c-kvm/
  // session-2026-11-30h/, Qwen3-0.6B decode_step from DRAM, 27 alternating rounds, median time
  // ratio): 16 threads fp16 0.946 and int8 0.957 (faster in 20 and 18 of 27 rounds), 8 threads
  // 0.963 and 0.934 (19, 20), fp32 and bf16 0.99-1.01; LLC rows 0.96-1.02. A second call, 20 rounds
  // at 16 threads with the DRAM read ceiling bracketing each row: int8 0.954 (15 of 20), 67.1 ->
  // 72.4% of the ceiling; fp16 0.973 and bf16 0.983 (11 of 20). On the 2-vCPU guest, at 2 threads
  // with chunks cut to 292 rows and a window run on past every range (scratch knobs), int8 0.945
  // (6 of 6 rounds).
  std::vector<std::int64_t> prefetch_to;
  std::unique_ptr<AlignedFloats> slab;             // partials: [parity][chunk]
  std::vector<AttentionPartial> chunk_parts[2];    // per chunk
  std::vector<std::vector<AttentionPartial>> head_parts[2];  // per head, in position order
  // Worker w owns the chunks of its block (harness/chunk_claims: contiguous, about the static
  // partition's share, in the same order). Claims of phase p use claims[p % 3]: the barrier
  // closing phase p - 1 means no worker still claims from [(p + 1) % 3] (last used in phase
  // p - 2), so each worker resets its own there during phase p, and the barrier closing phase p
  // publishes the reset before p + 1.
  ChunkClaims claims[3];
  bool steal = false;  // more chunks than workers

  std::unique_ptr<AlignedFloats> queries, outputs, new_k, new_v;
  // The new token encoded to the cache dtype ([K|V][kv_head] rows and scales): the source of
  // the append_memcpy reference.
  std::unique_ptr<AlignedFloats> token_rows;  // bytes, aligned as the append's source rows
  std::vector<float> token_scales;
  // Append slots: fixed at context - 1, or advancing from next_slot (advance_append_slots).
  bool advancing = false;
  std::int64_t next_slot = 0, last_slot = 0;
  std::atomic<int> failure{0};
  // Barrier waits: each worker's share of the last run in its own slot (written by that worker
  // only, read after the run), summed into `wait` by the dispatching thread.
  struct alignas(64) WaitSlot {
    std::uint64_t waiting = 0, running = 0;
  };
  std::vector<WaitSlot> wait_slots;
  // Ticks worker w has waited for worker j over every timed run: held_ticks(w, j), on worker w's
  // own cache lines (written by worker w only). Summed per j only when barrier_wait() is asked,
  // outside the timed runs: a sum per run would add threads^2 reads to every step.
  struct alignas(64) HeldLine {
    std::uint64_t ticks[8] = {};
  };
  std::vector<HeldLine> held;
  std::size_t held_lines = 0;  // per worker
  std::uint64_t& held_ticks(std::size_t w, std::size_t j) noexcept { return held[w * held_lines + j / 8].ticks[j % 8]; }
  BarrierWait wait;

  void fail(Status s) noexcept {
    int expected = 0;
    failure.compare_exchange_strong(expected, static_cast<int>(s));
  }

  void attend_chunk(std::int64_t c, int layer, int parity) noexcept {
    const WorkItem& it = chunks[static_cast<std::size_t>(c)];
    const float* q = queries->p + layer * qsize + std::int64_t{it.kv_head} * G * d;
    const Status s = attention_partial(cache, layer, it.kv_head, it.t0, it.t1, q, scale,
                                       chunk_parts[parity][static_cast<std::size_t>(c)],
                                       prefetch_to[static_cast<std::size_t>(c)]);
    if (!ok(s)) fail(s);
  }

  // Worker w's chunks of `layer`: its own block in order, then what is left of the others'.
  // With as many chunks as workers (short contexts) each takes its one chunk and touches no
  // counter: 16 workers claiming from shared cache lines at every layer took the EMR host's 7-us
  // layers (int8, 219 positions) 1.08-1.16x the time.
  void attention(int w, std::int64_t phase, int layer, int parity) noexcept {
    const ChunkClaims& own = claims[0];
    if (!steal) {
      for (std::int64_t c = own.block_begin(w); c < own.block_begin(w + 1); ++c) attend_chunk(c, layer, parity);
      return;
    }
    claims[phase % 3].claim(w, [&](std::int64_t c) { attend_chunk(c, layer, parity); });
  }

  void merge(const Worker& me, int layer, int parity) noexcept {
    for (std::int32_t h : me.merge_heads) {
      const auto& parts = head_parts[parity][static_cast<std::size_t>(h)];
      float* out = outputs->p + layer * qsize + std::int64_t{h} * G * d;
      const Status s = merge_partials(shape, parts.data(), static_cast<std::int32_t>(parts.size()), out);
      if (!ok(s)) fail(s);
    }
  }

  void append(int layer, std::int64_t pos, StoreHint hint = StoreHint::kAuto) noexcept {
    const Status s = append_token(cache, layer, pos, new_k->p, new_v->p, hint);
    if (!ok(s)) fail(s);
  }
  void append_own_heads(const Worker& me, int layer) noexcept {
    const Status s = append_token_heads(cache, layer, context - 1, new_k->p, new_v->p, me.append_first,
                                        me.append_heads);
    if (!ok(s)) fail(s);
  }

  void memcpy_token(int layer, std::int64_t pos) noexcept {
    const CacheGeometry& geo = *cache.geometry;
    const std::int64_t rb = dtype_row_bytes(shape.dtype, d);
    auto* base = static_cast<unsigned char*>(cache.data);
    for (KV kv : {KV::kKey, KV::kValue})
      for (std::int32_t h = 0; h < H; ++h) {
        const std::size_t i = static_cast<std::size_t>(static_cast<int>(kv) * H + h);
        std::memcpy(base + geo.byte_offset(layer, kv, h, pos), token_bytes() + i * static_cast<std::size_t>(rb),
                    static_cast<std::size_t>(rb));
        if (!token_scales.empty()) cache.scales[geo.scale_index(layer, kv, h, pos)] = token_scales[i];
      }
  }

  unsigned char* token_bytes() const noexcept { return reinterpret_cast<unsigned char*>(token_rows->p); }

  void encode_token() {
    const std::int64_t rb = dtype_row_bytes(shape.dtype, d);
    const auto bytes = static_cast<std::size_t>(2 * H * rb);
    token_rows = std::make_unique<AlignedFloats>((bytes + sizeof(float) - 1) / sizeof(float));
    std::memset(token_rows->p, 0, bytes);
    token_scales.assign(dtype_has_row_scale(shape.dtype) ? static_cast<std::size_t>(2 * H) : 0, 0.0f);
    for (KV kv : {KV::kKey, KV::kValue}) {
      const std::size_t i = static_cast<std::size_t>(static_cast<int>(kv) * H);
      encode_rows(kv == KV::kKey ? new_k->p : new_v->p, d, token_bytes() + i * static_cast<std::size_t>(rb), d, H, d,
                  shape.dtype, token_scales.empty() ? nullptr : &token_scales[i], false);
    }
  }

  // Returns the ticks this worker waited at barriers (0 unless `timed`).
  std::uint64_t run_worker(int w, Mode mode, std::int64_t steps, bool timed) noexcept {
    const Worker& me = workers[static_cast<std::size_t>(w)];
    if (appends(mode)) {
      // The slot of step s, without a division per step.
      std::int64_t pos = advancing ? next_slot : context - 1;
      for (std::int64_t s = 0; s < steps; ++s) {
        if (mode == Mode::kAppend)
          for (int l = w; l < L; l += T) append(l, pos);
        else if (mode == Mode::kAppendStreaming)
          for (int l = w; l < L; l += T) append(l, pos, StoreHint::kStreaming);
        else
          for (int l = w; l < L; l += T) memcpy_token(l, pos);
        if (advancing && ++pos == context) pos = 0;
      }
      return 0;
    }
    std::uint64_t waited = 0;
    const auto me_index = static_cast<std::size_t>(w);
    // Each layer ends at a barrier: in a real decode layer l + 1's query needs layer l's output.
    // Filling the wait with hints of the worker's next chunk (its K/V rows need no query; a split
    // barrier and up to 512 KiB towards L2) moved the EMR host's 8- and 16-thread rows 0.96-1.03x
    // the time (16, 34 and 32 rounds, none significant; results/xeon-emr-16c-kvm/session-2026-12-01/).
    const auto barrier = [&] {
      if (!timed) return pool->barrier();
      const std::uint64_t arrival = ticks();
      const ThreadPool::Arrival last = pool->barrier(arrival);
      if (last.worker < 0) return;
      waited += last.stamp - arrival;
      held_ticks(me_index, static_cast<std::size_t>(last.worker)) += last.stamp - arrival;
    };
    const bool appends = mode == Mode::kStep;
    const bool appender = appends && me.append_heads > 0;
    if (appender) append_own_heads(me, 0);
    if (appends) barrier();
    std::int64_t phase = 0;
    for (std::int64_t s = 0; s < steps; ++s) {
      for (int l = 0; l < L; ++l, ++phase) {
        const int parity = static_cast<int>(phase & 1);
        if (steal) claims[(phase + 1) % 3].reset(w);
        if (phase > 0) merge(me, l == 0 ? L - 1 : l - 1, parity ^ 1);
        attention(w, phase, l, parity);
        if (appender && !(s == steps - 1 && l == L - 1)) append_own_heads(me, l + 1 == L ? 0 : l + 1);
        barrier();
      }
    }
    if (phase > 0) merge(me, L - 1, static_cast<int>((phase - 1) & 1));
    return waited;
  }
};

ParallelDecode::ParallelDecode(ThreadPool& pool, const CacheView& cache, std::int64_t context) : impl_(new Impl) {
  Impl& m = *impl_;
  if (!cache.geometry || !cache.data) throw HarnessError("parallel decode: cache view has no geometry or data");
  m.pool = &pool;
  m.cache = cache;
  m.shape = cache.geometry->shape();
  if (context < 1 || context > m.shape.capacity)
    throw HarnessError("parallel decode: context " + std::to_string(context) + " must be in [1, capacity " +
                       std::to_string(m.shape.capacity) + "]");
  m.context = context;
  m.last_slot = context - 1;
  m.T = pool.size();
  m.L = m.shape.layers;
  m.H = m.shape.kv_heads;
  m.G = cache.geometry->group_size();
  m.d = m.shape.head_dim;
  m.qsize = std::int64_t{m.shape.q_heads} * m.d;
  m.scale = 1.0f / std::sqrt(static_cast<float>(m.d));
  m.plan = partition_decode(m.H, context, m.T);
  m.chunks = chunk_decode(m.H, context, m.T);
  const auto chunk_count = static_cast<std::int64_t>(m.chunks.size());
  for (auto& c : m.claims) c = ChunkClaims::even(chunk_count, m.T);
  // Stealing stays on for short layers too: without it the EMR host's 141-219-position layers took
  // 1.03-1.14x the time at 2-4 threads (a slow vCPU held the rest), though the Zen 5 guest's
  // 4-position ones took 0.84-0.90x (results/*/no-steal-short/).
  m.steal = chunk_count > m.T;
  m.prefetch_to.resize(m.chunks.size());
  for (int w = 0; w < m.T; ++w) {
    const auto first = static_cast<std::size_t>(m.claims[0].block_begin(w));
    const auto end = static_cast<std::size_t>(m.claims[0].block_begin(w + 1));
    for (std::size_t c = first; c < end; ++c) {
      const WorkItem& it = m.chunks[c];
      const bool goes_on = c + 1 < end && m.chunks[c + 1].kv_head == it.kv_head && m.chunks[c + 1].t0 == it.t1;
      m.prefetch_to[c] = goes_on ? m.chunks[c + 1].t1 : it.t1;
    }
  }
  m.workers.resize(static_cast<std::size_t>(m.T));
  m.wait_slots.resize(static_cast<std::size_t>(m.T));
  m.held_lines = (static_cast<std::size_t>(m.T) + 7) / 8;
  m.held.resize(static_cast<std::size_t>(m.T) * m.held_lines);

  const std::int64_t pf = (attention_partial_floats(m.shape) + kAlignFloats - 1) / kAlignFloats * kAlignFloats;
  for (int p = 0; p < 2; ++p) m.head_parts[p].resize(static_cast<std::size_t>(m.H));
  const std::size_t n = m.chunks.size();
  m.slab = std::make_unique<AlignedFloats>(2 * n * static_cast<std::size_t>(pf));
  std::memset(m.slab->p, 0, 2 * n * static_cast<std::size_t>(pf) * sizeof(float));
  for (int p = 0; p < 2; ++p)
    for (std::size_t i = 0; i < n; ++i) {
      const AttentionPartial part = attention_partial_from(m.slab->p + (p * n + i) * pf, m.shape);
      m.chunk_parts[p].push_back(part);
      m.head_parts[p][static_cast<std::size_t>(m.chunks[i].kv_head)].push_back(part);
    }
  const Cost attn = attention_cost(m.shape, context) * m.L;
  const std::int64_t rows_total = std::int64_t{m.H} * context;
  Cost assigned;
  for (int w = 0; w < m.T; ++w) {
    Impl::Worker& wk = m.workers[static_cast<std::size_t>(w)];
    wk.items = m.plan[static_cast<std::size_t>(w)];
    std::int64_t rows = 0;
    for (const WorkItem& it : wk.items) rows += it.t1 - it.t0;
    // Exact integer shares of the attention cost by the static partition's rows (the SDE events
    // count totals, which do not depend on who claimed which chunk); the remainder goes to worker
    // 0 below.
    wk.attention_share.bytes_read = attn.bytes_read * rows / rows_total;
    wk.attention_share.bytes_written = attn.bytes_written * rows / rows_total;
    wk.attention_share.flops = attn.flops * rows / rows_total;
    assigned += wk.attention_share;
  }
  Cost& w0 = m.workers[0].attention_share;
  w0.bytes_read += attn.bytes_read - assigned.bytes_read;
  w0.bytes_written += attn.bytes_written - assigned.bytes_written;
  w0.flops += attn.flops - assigned.flops;
  // Merge each head on the worker of its last piece in the static partition, spreading heads.
  for (std::int32_t h = 0; h < m.H; ++h) {
    int owner = 0;
    for (int w = 0; w < m.T; ++w)
      for (const WorkItem& it : m.workers[static_cast<std::size_t>(w)].items)
        if (it.kv_head == h) owner = w;
    m.workers[static_cast<std::size_t>(owner)].merge_heads.push_back(h);
  }
  // The next layer's token rows are split over min(H, T) workers in contiguous runs of heads,
  // those with the fewest merges first and worker 0 (which also dispatches) last among equals:
  // each phase ends at a barrier, so one worker appending every head made the others wait.
  std::vector<int> by_load(static_cast<std::size_t>(m.T));
  for (int w = 0; w < m.T; ++w) by_load[static_cast<std::size_t>(w)] = w;
  std::stable_sort(by_load.begin(), by_load.end(), [&](int a, int b) {
    const auto load = [&](int w) {
      return std::pair{m.workers[static_cast<std::size_t>(w)].merge_heads.size(), w == 0};
    };
    return load(a) < load(b);
  });
  const int appenders = std::min(m.H, m.T);
  for (int i = 0; i < appenders; ++i) {
    Impl::Worker& wk = m.workers[static_cast<std::size_t>(by_load[static_cast<std::size_t>(i)])];
    wk.append_first = static_cast<std::int32_t>(std::int64_t{m.H} * i / appenders);
    wk.append_heads = static_cast<std::int32_t>(std::int64_t{m.H} * (i + 1) / appenders) - wk.append_first;
  }
  for (int w = 0; w < m.T; ++w) {
    Impl::Worker& wk = m.workers[static_cast<std::size_t>(w)];
    wk.step_share = wk.attention_share;
    CacheShape mine = m.shape;  // the cost of its heads' rows: the shares add up to append_cost
    mine.kv_heads = wk.append_heads;
    if (wk.append_heads > 0) wk.step_share += append_cost(mine) * m.L;
    const std::int64_t layers_owned = w < m.L ? (m.L - w + m.T - 1) / m.T : 0;
    wk.append_share = append_cost(m.shape) * layers_owned;
    wk.memcpy_share = append_memcpy_cost(m.shape) * layers_owned;
  }
  const std::size_t lq = static_cast<std::size_t>(m.L * m.qsize);
  const std::size_t kv = static_cast<std::size_t>(m.H) * static_cast<std::size_t>(m.d);
  m.queries = std::make_unique<AlignedFloats>(lq);
  m.outputs = std::make_unique<AlignedFloats>(lq);
  m.new_k = std::make_unique<AlignedFloats>(kv);
  m.new_v = std::make_unique<AlignedFloats>(kv);
  std::memset(m.outputs->p, 0, lq * sizeof(float));
}

ParallelDecode::~ParallelDecode() = default;

void ParallelDecode::place_and_fill(std::uint64_t seed) {
  Impl& m = *impl_;
  const CacheGeometry& geo = *m.cache.geometry;
  const DType dt = m.shape.dtype;
  // Each worker generates its items' rows in blocks of fp32 and encodes them with the kernels'
  // SIMD row encoder (every dtype, scales included): first touch by the reader, at memory speed.
  constexpr std::int64_t kBlockRows = 64;
  if (dtype_has_row_scale(dt) && !m.cache.scales)
    throw HarnessError(std::string("parallel decode: ") + dtype_name(dt) + " cache needs a scale array");
  m.pool->run([&](int w) {
    std::vector<float> block(static_cast<std::size_t>(kBlockRows * m.d));
    for (const WorkItem& it : m.workers[static_cast<std::size_t>(w)].items)
      for (int l = 0; l < m.L; ++l)
        for (KV kv : {KV::kKey, KV::kValue})
          for (std::int64_t t0 = it.t0; t0 < it.t1; t0 += kBlockRows) {
            const std::int64_t rows = std::min(kBlockRows, it.t1 - t0);
            for (std::int64_t r = 0; r < rows; ++r) {
              const std::uint64_t rid = ((static_cast<std::uint64_t>(l) * 2 + static_cast<std::uint64_t>(kv)) * m.H +
                                         static_cast<std::uint64_t>(it.kv_head)) * static_cast<std::uint64_t>(m.shape.capacity) +
                                        static_cast<std::uint64_t>(t0 + r);
              float* row = block.data() + r * m.d;
              for (int j = 0; j < m.d; ++j) row[j] = deterministic_uniform(seed, rid * static_cast<std::uint64_t>(m.d) + static_cast<std::uint64_t>(j));
            }
            char* dst = static_cast<char*>(m.cache.data) + geo.byte_offset(l, kv, it.kv_head, t0);
            float* scales = dtype_has_row_scale(dt) ? m.cache.scales + geo.scale_index(l, kv, it.kv_head, t0) : nullptr;
            encode_rows(block.data(), m.d, dst, geo.position_stride(), rows, m.d, dt, scales, false);
          }
  });
  const std::uint64_t s2 = splitmix64(seed + 1);
  for (std::int64_t i = 0; i < m.L * m.qsize; ++i) m.queries->p[i] = deterministic_uniform(s2, static_cast<std::uint64_t>(i));
  const std::int64_t kv = std::int64_t{m.H} * m.d;
  for (std::int64_t i = 0; i < kv; ++i) {
    m.new_k->p[i] = deterministic_uniform(s2 + 1, static_cast<std::uint64_t>(i));
    m.new_v->p[i] = deterministic_uniform(s2 + 2, static_cast<std::uint64_t>(i));
  }
  m.encode_token();
}

void ParallelDecode::run(Mode mode, std::int64_t steps, CounterSet* counters) {
  Impl& m = *impl_;
  if (steps < 1) return;
  if (mode != Mode::kAttention && dtype_has_row_scale(m.shape.dtype) && !m.cache.scales)
    throw HarnessError("parallel decode: int8 cache needs a scale array");
  // One worker never waits; appends and memcpys run without barriers.
  const bool timed = m.T > 1 && (mode == Mode::kStep || mode == Mode::kAttention);
  for (auto& c : m.claims) c.reset_all();  // pool.run publishes the resets to the workers
  m.pool->run([&m, mode, steps, counters, timed](int w) {
    if (counters) counters->start(w);
    const std::uint64_t start = timed ? ticks() : 0;
    const std::uint64_t waited = m.run_worker(w, mode, steps, timed);
    if (timed) m.wait_slots[static_cast<std::size_t>(w)] = {waited, ticks() - start};
    const Impl::Worker& me = m.workers[static_cast<std::size_t>(w)];
    const Cost share = mode == Mode::kStep ? me.step_share
                       : mode == Mode::kAttention ? me.attention_share
                       : mode == Mode::kAppendMemcpy ? me.memcpy_share
                                                     : me.append_share;
    sde_count(share * steps);
    if (mode != Mode::kAttention && mode != Mode::kAppendMemcpy && w == 0) sde_count_tokens(steps);
    if (counters) counters->stop(w);
  });
  if (timed) {
    m.wait.by_worker.resize(m.wait_slots.size());
    for (std::size_t w = 0; w < m.wait_slots.size(); ++w) {
      const Impl::WaitSlot& slot = m.wait_slots[w];
      m.wait.waiting += slot.waiting;
      m.wait.running += slot.running;
      m.wait.by_worker[w].waiting += slot.waiting;
      m.wait.by_worker[w].running += slot.running;
    }
  }
  if (m.advancing && appends(mode)) {
    m.last_slot = (m.next_slot + steps - 1) % m.context;
    m.next_slot = (m.next_slot + steps) % m.context;
  } else if (mode != Mode::kAttention) {
    m.last_slot = m.context - 1;
  }
  const int f = m.failure.exchange(0);
  if (f != 0) throw HarnessError(std::string("parallel decode: kernel failed: ") + status_message(static_cast<Status>(f)));
}

void ParallelDecode::advance_append_slots(std::int64_t first) {
  Impl& m = *impl_;
  if (first < 0 || first >= m.context)
    throw HarnessError("parallel decode: first append slot " + std::to_string(first) + " outside [0, context " +
                       std::to_string(m.context) + ")");
  m.advancing = true;
  m.next_slot = first;
}

ParallelDecode::BarrierWait ParallelDecode::barrier_wait() const {
  BarrierWait w = impl_->wait;
  for (std::size_t j = 0; j < w.by_worker.size(); ++j)
    for (std::size_t from = 0; from < w.by_worker.size(); ++from) w.by_worker[j].held += impl_->held_ticks(from, j);
  return w;
}

const std::vector<std::vector<WorkItem>>& ParallelDecode::plan() const noexcept { return impl_->plan; }
std::int64_t ParallelDecode::context() const noexcept { return impl_->context; }
std::int64_t ParallelDecode::append_position() const noexcept { return impl_->last_slot; }

Cost ParallelDecode::cost(Mode mode) const {
  const Impl& m = *impl_;
  switch (mode) {
    case Mode::kStep: return decode_step_cost(m.shape, m.context);
    case Mode::kAttention: return attention_cost(m.shape, m.context) * m.L;
    case Mode::kAppend:
    case Mode::kAppendStreaming: return append_cost(m.shape) * m.L;
    case Mode::kAppendMemcpy: return append_memcpy_cost(m.shape) * m.L;
  }
  return {};
}

const float* ParallelDecode::query(std::int32_t layer) const { return impl_->queries->p + layer * impl_->qsize; }
const float* ParallelDecode::output(std::int32_t layer) const { return impl_->outputs->p + layer * impl_->qsize; }
const float* ParallelDecode::new_key() const { return impl_->new_k->p; }
const float* ParallelDecode::new_value() const { return impl_->new_v->p; }
float ParallelDecode::scale() const noexcept { return impl_->scale; }

}  // namespace kvb
