#include "kernels/paged_attention.h"

#include <algorithm>

#include "hwy/cache_control.h"
#include "kernels/attention.h"
#include "kernels/partial_fold.h"

namespace kvb {

namespace {
// Slots per span: one span of K and V for 8 heads of 128 fp32 dims is 2 x SPAN x 4 KiB.
constexpr std::int64_t kSpanSlots = 16;

CacheShape all_heads_shape(const PagedShape& s) noexcept {
  CacheShape a;
  a.layers = 1;
  a.q_heads = s.q_heads;
  a.kv_heads = 1;
  a.head_dim = s.head_dim;
  a.capacity = 1;
  a.dtype = s.dtype;
  return a;
}

// Folds logical positions [t0, t1) of every KV head into `all` (a partial of q_heads heads, the
// groups in KV-head order). Span-outer, head-inner: a span's slots hold the rows of all KV heads
// interleaved ([slot][kv_head][dim]), so finishing every head of a span before the next one
// streams its memory once while it is in L1/L2 instead of revisiting it once per head (a head's
// rows alone are 4 KiB apart for 8 heads x 128 fp32 dims, one row per page).
// Inputs are validated by the callers. scratch: one group partial.
Status all_heads_range(const PagedView& pool, std::int32_t layer, BlockTable table,
                       std::int64_t t0, std::int64_t t1, const float* q, float scale,
                       const AttentionPartial& all, float* scratch) noexcept {
  const PagedGeometry& geo = *pool.geometry;
  const PagedShape& s = geo.shape();
  const CacheView view = pool.slot_view();
  const std::int32_t G = geo.slots().group_size();
  const std::int32_t d = s.head_dim;
  const std::int64_t bs = s.block_size;
  const AttentionPartial piece = attention_partial_from(scratch, geo.slots().shape());
  clear_partial(s.q_heads, d, all);
  // A span is one contiguous stretch of slots: rows from `p` to the end of the span or block.
  auto span_at = [&](std::int64_t p, std::int64_t* slot0) {
    const std::int64_t off = p % bs;
    *slot0 = std::int64_t{table.blocks[p / bs]} * bs + off;
    return std::min({kSpanSlots, bs - off, t1 - p});
  };
  const auto* base = static_cast<const char*>(pool.data);
  const std::int64_t slot_bytes = std::int64_t{s.kv_heads} * geo.slots().row_bytes();
  for (std::int64_t p = t0; p < t1;) {
    std::int64_t slot0 = 0;
    const std::int64_t rows = span_at(p, &slot0);
    // Prefetch the next span (its K and V, all heads): the kernel's own prefetch only looks
    // ahead inside a range, and spans are shorter than its look-ahead; the next span may sit in
    // another block anywhere in the pool, where no hardware prefetcher would look.
    if (p + rows < t1) {
      std::int64_t next0 = 0;
      const std::int64_t next_bytes = span_at(p + rows, &next0) * slot_bytes;
      for (KV kv : {KV::kKey, KV::kValue}) {
        const char* at = base + geo.slots().byte_offset(layer, kv, 0, next0);
        for (std::int64_t b = 0; b < next_bytes; b += 64) hwy::Prefetch(at + b);
      }
    }
    for (std::int32_t h = 0; h < s.kv_heads; ++h) {
      if (Status st = attention_partial(view, layer, h, slot0, slot0 + rows,
                                        q + std::int64_t{h} * G * d, scale, piece);
          !ok(st))
        return st;
      fold_partial(G, d, piece, partial_slice(all, h * G, d));
    }
    p += rows;
  }
  return Status::kOk;
}
}  // namespace

std::int64_t paged_attention_workspace_floats(const PagedShape& s) noexcept {
  if (s.kv_heads <= 0 || s.head_dim <= 0) return 0;
  return (std::int64_t{s.kv_heads} + 1) * (s.q_heads / s.kv_heads) * (2 + std::int64_t{s.head_dim});
}

Status paged_decode_attention(const PagedView& pool, std::int32_t layer, BlockTable table,
                              std::int64_t seq_len, const float* q, float scale, float* out,
                              float* workspace) noexcept {
  if (pool.geometry == nullptr || pool.data == nullptr) return Status::kNullArgument;
  if (q == nullptr || out == nullptr || workspace == nullptr) return Status::kNullArgument;
  const PagedGeometry& geo = *pool.geometry;
  const PagedShape& s = geo.shape();
  if (dtype_has_row_scale(s.dtype) && pool.scales == nullptr) return Status::kNullArgument;
  if (layer < 0 || layer >= s.layers) return Status::kOutOfRange;
  if (Status st = check_block_table(geo, table, seq_len); !ok(st)) return st;

  const AttentionPartial all = attention_partial_from(workspace, all_heads_shape(s));
  if (Status st = all_heads_range(pool, layer, table, 0, seq_len, q, scale, all,
                                  workspace + std::int64_t{s.q_heads} * (2 + s.head_dim));
      !ok(st))
    return st;
  normalise_partial(s.q_heads, s.head_dim, all, out);
  return Status::kOk;
}

Status paged_attention_partial(const PagedView& pool, std::int32_t layer, BlockTable table,
                               std::int32_t kv_head, std::int64_t t0, std::int64_t t1,
                               const float* q, float scale, AttentionPartial out,
                               float* scratch) noexcept {
  if (pool.geometry == nullptr || pool.data == nullptr) return Status::kNullArgument;
  if (q == nullptr || scratch == nullptr || out.max == nullptr || out.sum == nullptr ||
      out.acc == nullptr)
    return Status::kNullArgument;
  const PagedGeometry& geo = *pool.geometry;
  const PagedShape& s = geo.shape();
  if (layer < 0 || layer >= s.layers || kv_head < 0 || kv_head >= s.kv_heads)
    return Status::kOutOfRange;
  if (t0 < 0 || t0 > t1) return Status::kOutOfRange;
  if (Status st = check_block_table(geo, table, t1); !ok(st)) return st;
  const CacheView view = pool.slot_view();
  const CacheShape& cs = geo.slots().shape();
  const std::int32_t G = geo.slots().group_size();
  const std::int64_t bs = s.block_size;
  const AttentionPartial piece = attention_partial_from(scratch, cs);
  clear_partial(G, s.head_dim, out);
  for (std::int64_t p = t0; p < t1;) {
    const std::int64_t off = p % bs;
    const std::int64_t rows = std::min(bs - off, t1 - p);  // to the end of this block or range
    const std::int64_t slot0 = std::int64_t{table.blocks[p / bs]} * bs + off;
    if (Status st = attention_partial(view, layer, kv_head, slot0, slot0 + rows, q, scale, piece);
        !ok(st))
      return st;
    fold_partial(G, s.head_dim, piece, out);
    p += rows;
  }
  return Status::kOk;
}

Status paged_batch_item_attention(const PagedView& pool, const BlockTable* tables,
                                  std::int32_t batch, std::int32_t layer, const BatchWorkItem& item,
                                  const float* q, float scale, AttentionPartial out,
                                  float* scratch) noexcept {
  if (batch <= 0) return Status::kInvalidShape;
  if (pool.geometry == nullptr || tables == nullptr || q == nullptr) return Status::kNullArgument;
  if (item.seq < 0 || item.seq >= batch) return Status::kOutOfRange;
  const PagedShape& s = pool.geometry->shape();
  if (item.kv_head < 0 || item.kv_head >= s.kv_heads) return Status::kOutOfRange;
  const std::int64_t G = s.q_heads / s.kv_heads;
  const float* qs = q + (std::int64_t{item.seq} * s.q_heads + item.kv_head * G) * s.head_dim;
  return paged_attention_partial(pool, layer, tables[item.seq], item.kv_head, item.t0, item.t1, qs,
                                 scale, out, scratch);
}

CacheShape paged_all_heads_shape(const PagedShape& shape) noexcept { return all_heads_shape(shape); }

Status paged_batch_range_attention(const PagedView& pool, const BlockTable* tables,
                                   std::int32_t batch, std::int32_t layer,
                                   const BatchWorkItem& item, const float* q, float scale,
                                   AttentionPartial out, float* scratch) noexcept {
  if (batch <= 0) return Status::kInvalidShape;
  if (pool.geometry == nullptr || pool.data == nullptr || tables == nullptr || q == nullptr ||
      scratch == nullptr || out.max == nullptr || out.sum == nullptr || out.acc == nullptr)
    return Status::kNullArgument;
  const PagedShape& s = pool.geometry->shape();
  if (dtype_has_row_scale(s.dtype) && pool.scales == nullptr) return Status::kNullArgument;
  if (item.seq < 0 || item.seq >= batch || item.kv_head != 0) return Status::kOutOfRange;
  if (layer < 0 || layer >= s.layers || item.t0 < 0 || item.t0 > item.t1) return Status::kOutOfRange;
  if (Status st = check_block_table(*pool.geometry, tables[item.seq], item.t1); !ok(st)) return st;
  return all_heads_range(pool, layer, tables[item.seq], item.t0, item.t1,
                         q + std::int64_t{item.seq} * s.q_heads * s.head_dim, scale, out, scratch);
}

}  // namespace kvb
