#include "benchmarks/variant_runner.h"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstring>
#include <vector>

#include "benchmarks/usage_error.h"
#include "harness/error.h"
#include "harness/memory.h"
#include "harness/thread_pool.h"
#include "kernels/attention.h"
#include "kernels/batched_attention.h"
#include "kernels/cache_management.h"
#include "kernels/chunked_attention.h"
#include "kernels/paged_attention.h"
#include "kernels/paged_cache.h"
#include "kernels/recompute.h"
#include "kernels/variant_costs.h"

namespace kvb {

bool is_variant_family(Family f) noexcept {
  switch (f) {
    case Family::kDecodeStep:
    case Family::kAttention:
    case Family::kAppend:
    case Family::kAppendMemcpy:
    case Family::kAppendStreaming:
    case Family::kPrefillCopy: return false;
    default: return true;
  }
}

bool runs_single_threaded(Family f) noexcept { return f == Family::kCacheRepack; }

std::vector<std::int64_t> batch_seq_lens(const std::string& kind, std::int64_t batch,
                                         std::int64_t context) {
  std::vector<std::int64_t> lens(static_cast<std::size_t>(batch), context);
  if (kind == "ragged" && batch > 1) {
    for (std::int64_t b = 0; b < batch; ++b) {
      const double f = 0.25 + 1.5 * static_cast<double>(b) / static_cast<double>(batch - 1);
      lens[static_cast<std::size_t>(b)] =
          std::max<std::int64_t>(1, std::llround(f * static_cast<double>(context)));
    }
  }
  return lens;
}

std::int64_t variant_memory_bytes(const DecodeConfig& c, Family family, const VariantParams& p) {
  const std::int64_t kv = c.kv_bytes();  // the attended positions, scales included
  const std::int64_t context = std::max<std::int64_t>(c.attended(), 1);
  const std::int64_t grown = grown_capacity(context + 1, 1024);
  const std::int64_t d = c.shape.head_dim;
  switch (family) {
    case Family::kPagedAttention:  // the pool, rounded up to whole blocks
      return kv / context * ((context + p.block_size - 1) / std::max<std::int64_t>(p.block_size, 1) *
                             p.block_size);
    case Family::kBatchedAttention: {
      std::int64_t positions = 0;
      for (std::int64_t len : batch_seq_lens(p.seq_lens, p.batch, context)) positions += len;
      return kv / context * positions;
    }
    case Family::kCacheClone: return kv * p.batch;
    case Family::kCacheGrow:
    case Family::kCacheRepack: return kv / context * grown;
    case Family::kMemcpySameBytes: return kv;
    case Family::kRecomputeDecode: {
      const std::int64_t hidden =
          c.shape.hidden_size > 0 ? c.shape.hidden_size : c.shape.q_heads * d;
      const std::int64_t kvd = c.shape.kv_heads * d;
      // x, two weights, per-worker K/V workspaces, and the double K/V of the validation.
      return 4 * (context * hidden + 2 * hidden * kvd) + c.threads * 4 * 2 * context * kvd +
             8 * 2 * context * kvd;
    }
    default: return 0;
  }
}

namespace {

// fp32 kernels vs the double reference, as the decode validation: indexing or decoding bugs
// give errors of order 1.
constexpr double kTolerance = 1e-3;

CacheShape with_capacity(CacheShape s, std::int64_t capacity, std::int32_t layers = 0) {
  s.capacity = capacity;
  if (layers > 0) s.layers = layers;
  return s;
}

CacheGeometry make_geometry(const CacheShape& s) {
  CacheGeometry g;
  if (const Status st = CacheGeometry::create(s, &g); !ok(st)) {
    throw HarnessError(std::string("cannot build cache geometry: ") + status_message(st));
  }
  return g;
}

// A cache in its own buffer: data, then (scaled dtypes) the row scales 64-byte aligned.
struct OwnedCache {
  CacheGeometry geometry;
  Buffer buffer;
  OwnedCache(const Topology& topo, const Placement& placement, const CacheShape& shape)
      : geometry(make_geometry(shape)),
        buffer(topo, static_cast<std::size_t>(data_span() + geometry.scale_bytes() + 64),
               placement) {}
  std::int64_t data_span() const { return (geometry.data_bytes() + 63) / 64 * 64; }
  CacheView view() const {
    CacheView v;
    v.geometry = &geometry;
    v.data = buffer.data();
    v.scales = geometry.scale_bytes() > 0
                   ? reinterpret_cast<float*>(static_cast<char*>(buffer.data()) + data_span())
                   : nullptr;
    return v;
  }
};

std::int64_t payload_row_bytes(const CacheShape& s) { return dtype_row_bytes(s.dtype, s.head_dim); }

// Copies the row (layer, kv, head, src_pos) of src to dst_pos of dst, scale included.
void copy_row(const CacheView& src, std::int64_t src_pos, const CacheView& dst,
              std::int64_t dst_pos, std::int32_t layer, KV kv, std::int32_t head) {
  const CacheGeometry& sg = *src.geometry;
  const CacheGeometry& dg = *dst.geometry;
  std::memcpy(static_cast<char*>(dst.data) + dg.byte_offset(layer, kv, head, dst_pos, 0),
              static_cast<const char*>(src.data) + sg.byte_offset(layer, kv, head, src_pos, 0),
              static_cast<std::size_t>(payload_row_bytes(sg.shape())));
  if (src.scales != nullptr) {
    dst.scales[dg.scale_index(layer, kv, head, dst_pos)] =
        src.scales[sg.scale_index(layer, kv, head, src_pos)];
  }
}

// Rows [0, tokens) of every layer of `got` equal those of `want` (payload bytes and scales)?
bool same_rows(const CacheView& want, const CacheView& got, std::int64_t tokens,
               std::string* detail) {
  const CacheShape& s = want.geometry->shape();
  const auto row = static_cast<std::size_t>(payload_row_bytes(s));
  for (std::int32_t l = 0; l < s.layers; ++l)
    for (KV kv : {KV::kKey, KV::kValue})
      for (std::int32_t h = 0; h < s.kv_heads; ++h)
        for (std::int64_t t = 0; t < tokens; ++t) {
          const bool data_ok =
              std::memcmp(static_cast<const char*>(want.data) +
                              want.geometry->byte_offset(l, kv, h, t, 0),
                          static_cast<const char*>(got.data) + got.geometry->byte_offset(l, kv, h, t, 0),
                          row) == 0;
          const bool scale_ok =
              want.scales == nullptr ||
              want.scales[want.geometry->scale_index(l, kv, h, t)] ==
                  got.scales[got.geometry->scale_index(l, kv, h, t)];
          if (!data_ok || !scale_ok) {
            *detail = "copied row (layer " + std::to_string(l) + ", head " + std::to_string(h) +
                      ", position " + std::to_string(t) + ") differs from its source";
            return false;
          }
        }
  return true;
}

// One layer of a full cache as a cache of its own (layer-major layouts: the layer's K|V
// blocks and scales are contiguous), so copies can be spread over workers by layer.
CacheView layer_view(const CacheGeometry& one_layer, const CacheView& full, std::int32_t layer) {
  CacheView v;
  v.geometry = &one_layer;
  v.data = static_cast<char*>(full.data) + layer * full.geometry->layer_data_bytes();
  v.scales = full.scales == nullptr
                 ? nullptr
                 : full.scales + std::int64_t{layer} * 2 * full.geometry->shape().kv_heads *
                                     full.geometry->shape().capacity;
  return v;
}

// Largest |fast - reference| relative to max |reference|.
double relative_error(const float* fast, const std::vector<double>& ref) {
  double max_ref = 0, max_err = 0;
  for (std::size_t i = 0; i < ref.size(); ++i) {
    max_ref = std::max(max_ref, std::fabs(ref[i]));
    max_err = std::max(max_err, std::fabs(static_cast<double>(fast[i]) - ref[i]));
  }
  return max_ref > 0 ? max_err / max_ref : max_err;
}

std::vector<std::int32_t> checked_layers(std::int32_t layers, int n) {
  std::vector<std::int32_t> out;
  n = std::min<int>(n, layers);
  for (int i = 0; i < n; ++i) {
    out.push_back(n == 1 ? 0 : static_cast<std::int32_t>(std::int64_t{i} * (layers - 1) / (n - 1)));
  }
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

void check(Status st, const char* what) {
  if (!ok(st)) throw HarnessError(std::string(what) + ": " + status_message(st));
}

}  // namespace

struct VariantRunner::Impl {
  ThreadPool* pool = nullptr;
  Family family;
  VariantParams params;
  CacheView src;
  CacheShape shape;  // the source cache's shape
  std::int64_t context = 0;
  std::int32_t layers = 0;
  float scale = 0;
  Cost cost;
  std::int64_t working_set = 0;
  std::int64_t tokens_per_unit = 0;
  Validation validation{true, 0, ""};
  std::atomic<int> failed{0};

  // Work plan (paged, batched): items, per-thread ranges, partial storage per layer.
  std::vector<BatchWorkItem> items;
  std::vector<std::int64_t> thread_first;
  std::int64_t partial_floats = 0;
  std::vector<float> partials;  // [layer][item][partial_floats]
  std::vector<std::vector<float>> scratch;  // per worker
  std::vector<float> queries;  // [layer][tokens][q_heads][head_dim]
  std::vector<float> outputs;  // likewise

  // paged
  PagedGeometry paged_geo;
  std::unique_ptr<Buffer> paged_buffer;
  std::vector<std::int32_t> blocks;
  PagedView paged_view() const {
    PagedView v;
    v.geometry = &paged_geo;
    v.data = paged_buffer->data();
    const std::int64_t span = (paged_geo.slots().data_bytes() + 63) / 64 * 64;
    v.scales = paged_geo.slots().scale_bytes() > 0
                   ? reinterpret_cast<float*>(static_cast<char*>(paged_buffer->data()) + span)
                   : nullptr;
    return v;
  }
  // batched
  std::vector<std::unique_ptr<OwnedCache>> seqs;
  std::vector<CacheView> seq_views;
  std::vector<std::int64_t> seq_lens;
  // cache management
  std::unique_ptr<OwnedCache> dst;                    // grow target / repack buffer
  std::vector<std::unique_ptr<OwnedCache>> clones;
  CacheGeometry src_layer, dst_layer;                 // one-layer geometries
  CacheGeometry repack_from, repack_to;
  bool repacked = false;
  std::unique_ptr<Buffer> memcpy_dst;
  std::int64_t memcpy_bytes = 0;
  // recompute
  std::int32_t hidden = 0;
  std::vector<float> x, wk, wv;

  std::int64_t qh_d() const { return std::int64_t{shape.q_heads} * shape.head_dim; }
  // KV bytes of one position over all layers (K and V rows, row scales): attention working
  // sets are counted like decode_step's, so rows land on the same ws_level and ceiling.
  std::int64_t kv_bytes_per_position() const {
    return 2 * std::int64_t{layers} * shape.kv_heads *
           (payload_row_bytes(shape) + (dtype_has_row_scale(shape.dtype) ? 4 : 0));
  }

  void build_paged(const Topology& topo, const Placement& placement);
  void build_batched(const Topology& topo, const Placement& placement);
  void build_chunked();
  void build_copies(const Topology& topo, const Placement& placement, bool inject_fault);
  void build_recompute();
  void plan(const std::int64_t* lens, std::int32_t batch, std::int32_t kv_heads,
            std::int64_t floats);
  void run();
  void validate_attention(int validate_layers, bool inject_fault);
};

void VariantRunner::Impl::plan(const std::int64_t* lens, std::int32_t batch,
                               std::int32_t kv_heads, std::int64_t floats) {
  const int threads = pool->size();
  items.resize(static_cast<std::size_t>(batch_work_items_bound(batch, kv_heads, threads)));
  thread_first.resize(static_cast<std::size_t>(threads) + 1);
  std::int64_t n = 0;
  check(plan_batch_work(lens, batch, kv_heads, threads, BatchSplit::kByRows, items.data(),
                        static_cast<std::int64_t>(items.size()), &n, thread_first.data()),
        "plan_batch_work");
  items.resize(static_cast<std::size_t>(n));
  partial_floats = floats;
  partials.assign(static_cast<std::size_t>(layers * n * floats), 0.0f);
}

void VariantRunner::Impl::build_paged(const Topology& topo, const Placement& placement) {
  const std::int64_t bs = params.block_size;
  PagedShape ps;
  ps.layers = shape.layers;
  ps.q_heads = shape.q_heads;
  ps.kv_heads = shape.kv_heads;
  ps.head_dim = shape.head_dim;
  ps.block_size = static_cast<std::int32_t>(bs);
  ps.num_blocks = (context + bs - 1) / bs;
  ps.dtype = shape.dtype;
  check(PagedGeometry::create(ps, &paged_geo), "paged pool geometry");
  const std::int64_t span = (paged_geo.slots().data_bytes() + 63) / 64 * 64;
  paged_buffer = std::make_unique<Buffer>(
      topo, static_cast<std::size_t>(span + paged_geo.slots().scale_bytes() + 64), placement);
  blocks.resize(static_cast<std::size_t>(ps.num_blocks));
  assign_blocks(ps.num_blocks, params.block_order == "shuffled", 0x7061676564ULL, blocks.data());
  const CacheView slots = paged_view().slot_view();
  for (std::int32_t l = 0; l < layers; ++l)
    for (KV kv : {KV::kKey, KV::kValue})
      for (std::int32_t h = 0; h < shape.kv_heads; ++h)
        for (std::int64_t p = 0; p < context; ++p) {
          copy_row(src, p, slots, blocks[static_cast<std::size_t>(p / bs)] * bs + p % bs, l, kv, h);
        }
  const CacheShape all_heads = paged_all_heads_shape(ps);
  plan(&context, 1, 1, attention_partial_floats(all_heads));
  scratch.assign(static_cast<std::size_t>(pool->size()),
                 std::vector<float>(static_cast<std::size_t>(
                     attention_partial_floats(paged_geo.slots().shape()))));
  cost = paged_attention_cost(ps, context) * layers;
  working_set = kv_bytes_per_position() * context;
  tokens_per_unit = 1;
}

void VariantRunner::Impl::build_batched(const Topology& topo, const Placement& placement) {
  const auto batch = static_cast<std::int32_t>(params.batch);
  seq_lens = batch_seq_lens(params.seq_lens, batch, context);
  for (std::int32_t b = 0; b < batch; ++b) {
    const std::int64_t len = seq_lens[static_cast<std::size_t>(b)];
    seqs.push_back(std::make_unique<OwnedCache>(topo, placement,
                                                with_capacity(shape, len)));
    seq_views.push_back(seqs.back()->view());
    // Sequence b holds source positions shifted by 7b (wrapping), so sequences differ.
    for (std::int32_t l = 0; l < layers; ++l)
      for (KV kv : {KV::kKey, KV::kValue})
        for (std::int32_t h = 0; h < shape.kv_heads; ++h)
          for (std::int64_t p = 0; p < len; ++p) {
            copy_row(src, (p + 7 * std::int64_t{b}) % context, seq_views.back(), p, l, kv, h);
          }
  }
  plan(seq_lens.data(), batch, shape.kv_heads, attention_partial_floats(shape));
  cost = batched_attention_cost(shape, seq_lens.data(), batch) * layers;
  std::int64_t positions = 0;
  for (std::int64_t len : seq_lens) positions += len;
  working_set = kv_bytes_per_position() * positions;
  tokens_per_unit = batch;
}

void VariantRunner::Impl::build_chunked() {
  const std::int64_t tq = params.query_tokens;
  scratch.assign(static_cast<std::size_t>(pool->size()),
                 std::vector<float>(static_cast<std::size_t>(
                     chunked_attention_workspace_floats(shape, static_cast<std::int32_t>(tq)))));
  cost = chunked_attention_cost(shape, context - tq, static_cast<std::int32_t>(tq)) * layers;
  working_set = kv_bytes_per_position() * context;
  tokens_per_unit = tq;
}

void VariantRunner::Impl::build_copies(const Topology& topo, const Placement& placement,
                                       bool inject_fault) {
  const std::int64_t grown = grown_capacity(context + 1, 1024);
  cost = cache_copy_cost(shape, context);
  src_layer = make_geometry(with_capacity(shape, shape.capacity, 1));
  std::string detail;
  bool valid = true;
  switch (family) {
    case Family::kCacheGrow:
      dst = std::make_unique<OwnedCache>(topo, placement, with_capacity(shape, grown));
      dst_layer = make_geometry(with_capacity(shape, grown, 1));
      run();
      if (inject_fault) static_cast<char*>(dst->buffer.data())[0] ^= 1;
      valid = same_rows(src, dst->view(), context, &detail);
      break;
    case Family::kCacheClone:
      for (std::int64_t i = 0; i < params.batch; ++i) {
        clones.push_back(std::make_unique<OwnedCache>(topo, placement, shape));
      }
      cost = cost * params.batch;
      run();
      if (inject_fault) static_cast<char*>(clones.back()->buffer.data())[0] ^= 1;
      for (const auto& c : clones) valid = valid && same_rows(src, c->view(), context, &detail);
      break;
    case Family::kCacheRepack: {
      // One buffer big enough for both capacities; the timed unit alternates grow / shrink.
      repack_from = make_geometry(with_capacity(shape, context));
      repack_to = make_geometry(with_capacity(shape, grown));
      dst = std::make_unique<OwnedCache>(topo, placement, with_capacity(shape, grown));
      CacheView start = dst->view();
      start.geometry = &repack_from;
      for (std::int32_t l = 0; l < layers; ++l)
        for (KV kv : {KV::kKey, KV::kValue})
          for (std::int32_t h = 0; h < shape.kv_heads; ++h)
            for (std::int64_t p = 0; p < context; ++p) copy_row(src, p, start, p, l, kv, h);
      run();  // grown
      if (inject_fault) static_cast<char*>(dst->buffer.data())[0] ^= 1;
      CacheView now = dst->view();
      now.geometry = &repack_to;
      valid = same_rows(src, now, context, &detail);
      run();  // back
      now.geometry = &repack_from;
      valid = valid && same_rows(src, now, context, &detail);
      break;
    }
    case Family::kMemcpySameBytes:
      memcpy_bytes = cost.bytes_written;
      memcpy_dst = std::make_unique<Buffer>(topo, static_cast<std::size_t>(memcpy_bytes), placement);
      run();
      if (inject_fault) static_cast<char*>(memcpy_dst->data())[0] ^= 1;
      valid = std::memcmp(memcpy_dst->data(), src.data, static_cast<std::size_t>(memcpy_bytes)) == 0;
      if (!valid) detail = "memcpy destination differs from its source";
      break;
    default: break;
  }
  working_set = cost.bytes_read + cost.bytes_written;
  validation = {valid, 0, detail};
}

void VariantRunner::Impl::build_recompute() {
  hidden = static_cast<std::int32_t>(hidden > 0 ? hidden : shape.q_heads * shape.head_dim);
  const std::int64_t kvd = std::int64_t{shape.kv_heads} * shape.head_dim;
  x.resize(static_cast<std::size_t>(context * hidden));
  wk.resize(static_cast<std::size_t>(hidden * kvd));
  wv.resize(wk.size());
  std::uint32_t s = 0x2545f491u;
  const auto next = [&] {
    s = s * 1664525u + 1013904223u;
    return static_cast<float>(s >> 8) * 0x1p-23f - 1.0f;
  };
  const float w_scale = 1.0f / std::sqrt(static_cast<float>(hidden));
  for (float& v : x) v = next();
  for (float& v : wk) v = next() * w_scale;
  for (float& v : wv) v = next() * w_scale;
  scratch.assign(static_cast<std::size_t>(pool->size()),
                 std::vector<float>(static_cast<std::size_t>(recompute_workspace_floats(shape, context))));
  cost = recompute_cost(shape, hidden, context) * layers;
  working_set = static_cast<std::int64_t>((x.size() + wk.size() + wv.size()) * sizeof(float));
  tokens_per_unit = 1;
}

void VariantRunner::Impl::run() {
  const int threads = pool->size();
  const std::int64_t out_stride = qh_d() * std::max<std::int64_t>(tokens_per_unit, 1);
  switch (family) {
    case Family::kPagedAttention:
    case Family::kBatchedAttention: {
      const bool paged = family == Family::kPagedAttention;
      const PagedView pv = paged ? paged_view() : PagedView{};
      const BlockTable table{blocks.data(), static_cast<std::int64_t>(blocks.size())};
      const CacheShape merge_shape = paged ? paged_all_heads_shape(paged_geo.shape()) : shape;
      const auto n = static_cast<std::int64_t>(items.size());
      pool->run([&](int w) {
        float* const scr = paged ? scratch[static_cast<std::size_t>(w)].data() : nullptr;
        for (std::int32_t l = 0; l < layers; ++l) {
          const float* q = queries.data() + l * out_stride;
          for (std::int64_t i = thread_first[static_cast<std::size_t>(w)];
               i < thread_first[static_cast<std::size_t>(w) + 1]; ++i) {
            const AttentionPartial part = attention_partial_from(
                partials.data() + (l * n + i) * partial_floats, merge_shape);
            const BatchWorkItem& item = items[static_cast<std::size_t>(i)];
            const Status st =
                paged ? paged_batch_range_attention(pv, &table, 1, l, item, q, scale, part, scr)
                      : batch_item_attention(seq_views.data(), static_cast<std::int32_t>(params.batch),
                                             l, item, q, scale, part);
            if (!ok(st)) failed.store(1, std::memory_order_relaxed);
          }
        }
        pool->barrier();
        for (std::int32_t l = w; l < layers; l += threads) {
          const auto batch = static_cast<std::int32_t>(paged ? 1 : params.batch);
          if (!ok(merge_batch_partials(merge_shape, batch, items.data(), n,
                                       partials.data() + l * n * partial_floats,
                                       outputs.data() + l * out_stride))) {
            failed.store(1, std::memory_order_relaxed);
          }
        }
      });
      break;
    }
    case Family::kChunkedAttention: {
      const auto tq = static_cast<std::int32_t>(params.query_tokens);
      pool->run([&](int w) {
        for (std::int32_t l = w; l < layers; l += threads) {
          if (!ok(chunked_decode_attention(src, l, context - tq, tq, queries.data() + l * out_stride,
                                           scale, outputs.data() + l * out_stride,
                                           scratch[static_cast<std::size_t>(w)].data()))) {
            failed.store(1, std::memory_order_relaxed);
          }
        }
      });
      break;
    }
    case Family::kRecomputeDecode: {
      pool->run([&](int w) {
        for (std::int32_t l = w; l < layers; l += threads) {
          if (!ok(recompute_decode_attention(shape, x.data(), context, hidden, wk.data(), wv.data(),
                                             queries.data() + l * out_stride, scale,
                                             outputs.data() + l * out_stride,
                                             scratch[static_cast<std::size_t>(w)].data()))) {
            failed.store(1, std::memory_order_relaxed);
          }
        }
      });
      break;
    }
    case Family::kCacheGrow:
    case Family::kCacheClone: {
      const CacheView d = dst ? dst->view() : CacheView{};
      pool->run([&](int w) {
        std::vector<CacheView> targets;
        for (std::int32_t l = w; l < layers; l += threads) {
          const CacheView s = layer_view(src_layer, src, l);
          Status st;
          if (family == Family::kCacheGrow) {
            st = copy_cache_prefix(s, layer_view(dst_layer, d, l), context);
          } else {
            targets.clear();
            for (const auto& c : clones) targets.push_back(layer_view(src_layer, c->view(), l));
            st = clone_cache(s, targets.data(), static_cast<std::int32_t>(targets.size()), context);
          }
          if (!ok(st)) failed.store(1, std::memory_order_relaxed);
        }
      });
      break;
    }
    case Family::kCacheRepack: {
      const CacheView d = dst->view();
      const CacheGeometry& from = repacked ? repack_to : repack_from;
      const CacheGeometry& to = repacked ? repack_from : repack_to;
      if (!ok(repack_in_place(from, to, context, d.data, d.scales))) failed.store(1);
      repacked = !repacked;
      break;
    }
    case Family::kMemcpySameBytes: {
      pool->run([&](int w) {
        const std::int64_t lines = (memcpy_bytes + 63) / 64;
        const std::int64_t b0 = std::min(memcpy_bytes, lines * w / threads * 64);
        const std::int64_t b1 = std::min(memcpy_bytes, lines * (w + 1) / threads * 64);
        std::memcpy(static_cast<char*>(memcpy_dst->data()) + b0,
                    static_cast<const char*>(src.data) + b0, static_cast<std::size_t>(b1 - b0));
      });
      break;
    }
    default: break;
  }
  if (failed.load()) {
    throw HarnessError(std::string(family_name(family)) + ": a kernel rejected its input");
  }
}

void VariantRunner::Impl::validate_attention(int validate_layers, bool inject_fault) {
  run();
  const std::int64_t tokens = std::max<std::int64_t>(tokens_per_unit, 1);
  const std::int64_t out_stride = qh_d() * tokens;
  const double dscale = 1.0 / std::sqrt(static_cast<double>(shape.head_dim));
  std::vector<double> ref(static_cast<std::size_t>(qh_d()));
  std::vector<double> ws(static_cast<std::size_t>(
      std::max<std::int64_t>(context, seq_lens.empty() ? 0 : *std::max_element(seq_lens.begin(), seq_lens.end()))));
  if (inject_fault) outputs[static_cast<std::size_t>(qh_d() / 2)] += 1.0f;
  std::vector<double> k, v;  // recompute: K/V of all tokens in double
  if (family == Family::kRecomputeDecode) {
    const std::int64_t kvd = std::int64_t{shape.kv_heads} * shape.head_dim;
    k.assign(static_cast<std::size_t>(context * kvd), 0.0);
    v.assign(k.size(), 0.0);
    for (std::int64_t t = 0; t < context; ++t)
      for (std::int64_t i = 0; i < hidden; ++i) {
        const double xi = x[static_cast<std::size_t>(t * hidden + i)];
        for (std::int64_t j = 0; j < kvd; ++j) {
          k[static_cast<std::size_t>(t * kvd + j)] += xi * wk[static_cast<std::size_t>(i * kvd + j)];
          v[static_cast<std::size_t>(t * kvd + j)] += xi * wv[static_cast<std::size_t>(i * kvd + j)];
        }
      }
  }
  const auto fail = [&](const std::string& what, double rel) {
    validation.max_rel_err = std::max(validation.max_rel_err, rel);
    if (!(rel <= kTolerance)) {
      validation.valid = false;
      validation.detail = what + " differs from the double reference by " + std::to_string(rel);
    }
  };
  // Recompute uses the same x and weights in every layer: one layer checks the kernel.
  const int n_layers = family == Family::kRecomputeDecode ? 1 : validate_layers;
  for (std::int32_t l : checked_layers(layers, n_layers)) {
    const std::string where = std::string(family_name(family)) + " layer " + std::to_string(l);
    const float* q_layer = queries.data() + l * out_stride;
    const float* out_layer = outputs.data() + l * out_stride;
    switch (family) {
      case Family::kPagedAttention:
        check(decode_attention_reference(src, l, context, q_layer, dscale, ref.data(), ws.data()),
              "reference attention");
        fail(where, relative_error(out_layer, ref));
        break;
      case Family::kBatchedAttention:
        for (std::int64_t b = 0; b < params.batch; ++b) {
          check(decode_attention_reference(seq_views[static_cast<std::size_t>(b)], l,
                                           seq_lens[static_cast<std::size_t>(b)], q_layer + b * qh_d(),
                                           dscale, ref.data(), ws.data()),
                "reference attention");
          fail(where + " sequence " + std::to_string(b), relative_error(out_layer + b * qh_d(), ref));
        }
        break;
      case Family::kChunkedAttention:
        for (std::int64_t i = 0; i < params.query_tokens; ++i) {
          check(decode_attention_reference(src, l, context - params.query_tokens + i + 1,
                                           q_layer + i * qh_d(), dscale, ref.data(), ws.data()),
                "reference attention");
          fail(where + " query " + std::to_string(i), relative_error(out_layer + i * qh_d(), ref));
        }
        break;
      case Family::kRecomputeDecode: {
        const std::int32_t G = shape.q_heads / shape.kv_heads;
        const std::int64_t d = shape.head_dim, kvd = std::int64_t{shape.kv_heads} * d;
        std::vector<double> p(static_cast<std::size_t>(context));
        for (std::int32_t h = 0; h < shape.q_heads; ++h) {
          const std::int64_t kh = h / G;
          double mx = -INFINITY, sum = 0;
          for (std::int64_t t = 0; t < context; ++t) {
            double dot = 0;
            for (std::int64_t e = 0; e < d; ++e) {
              dot += double{q_layer[h * d + e]} * k[static_cast<std::size_t>(t * kvd + kh * d + e)];
            }
            p[static_cast<std::size_t>(t)] = dot * dscale;
            mx = std::max(mx, dot * dscale);
          }
          for (double& s : p) sum += (s = std::exp(s - mx));
          for (std::int64_t e = 0; e < d; ++e) {
            double acc = 0;
            for (std::int64_t t = 0; t < context; ++t) {
              acc += p[static_cast<std::size_t>(t)] * v[static_cast<std::size_t>(t * kvd + kh * d + e)];
            }
            ref[static_cast<std::size_t>(h * d + e)] = acc / sum;
          }
        }
        fail(where, relative_error(out_layer, ref));
        break;
      }
      default: break;
    }
  }
}

VariantRunner::VariantRunner(const Topology& topo, const Placement& placement, ThreadPool& pool,
                             const Source& source, Family family, const VariantParams& params,
                             int validate_layers, bool inject_fault)
    : impl_(std::make_unique<Impl>()) {
  Impl& m = *impl_;
  m.pool = &pool;
  m.family = family;
  m.params = params;
  m.src = source.cache;
  m.shape = source.cache.geometry->shape();
  m.context = source.context;
  m.layers = m.shape.layers;
  m.hidden = static_cast<std::int32_t>(source.hidden);
  m.scale = static_cast<float>(1.0 / std::sqrt(static_cast<double>(m.shape.head_dim)));
  if (family == Family::kPagedAttention && params.block_size <= 0) {
    throw UsageError("paged_attention: block size must be > 0");
  }
  if ((family == Family::kBatchedAttention || family == Family::kCacheClone) && params.batch <= 0) {
    throw UsageError(std::string(family_name(family)) + ": batch must be > 0");
  }
  if (family == Family::kChunkedAttention &&
      (params.query_tokens <= 0 || params.query_tokens > m.context)) {
    throw UsageError("chunked_attention: query tokens " + std::to_string(params.query_tokens) +
                     " must be in [1, context " + std::to_string(m.context) + "]");
  }
  // Query vectors: token i of layer l (or sequence i of a batch) takes layer (l + i)'s decode
  // query, so tokens differ and the data is the decode fixture's.
  const std::int64_t tokens =
      family == Family::kBatchedAttention ? params.batch
      : family == Family::kChunkedAttention ? params.query_tokens
                                            : 1;
  m.queries.resize(static_cast<std::size_t>(m.layers * tokens * m.qh_d()));
  m.outputs.assign(m.queries.size(), 0.0f);
  for (std::int32_t l = 0; l < m.layers; ++l)
    for (std::int64_t i = 0; i < tokens; ++i) {
      const float* q = source.queries[static_cast<std::size_t>((l + i) % m.layers)];
      std::copy(q, q + m.qh_d(), m.queries.begin() + (l * tokens + i) * m.qh_d());
    }
  switch (family) {
    case Family::kPagedAttention: m.build_paged(topo, placement); break;
    case Family::kBatchedAttention: m.build_batched(topo, placement); break;
    case Family::kChunkedAttention: m.build_chunked(); break;
    case Family::kRecomputeDecode: m.build_recompute(); break;
    default: m.build_copies(topo, placement, inject_fault); return;  // validated while built
  }
  m.validate_attention(validate_layers, inject_fault);
}

VariantRunner::~VariantRunner() = default;

void VariantRunner::run() { impl_->run(); }
Cost VariantRunner::cost() const { return impl_->cost; }
std::int64_t VariantRunner::working_set_bytes() const { return impl_->working_set; }
std::int64_t VariantRunner::tokens_per_unit() const { return impl_->tokens_per_unit; }
const Validation& VariantRunner::validation() const { return impl_->validation; }

}  // namespace kvb
