#include "kernels/paged_attention.h"

#include <algorithm>

#include "kernels/attention.h"
#include "kernels/partial_fold.h"

namespace kvb {

namespace {
// Slots per span: one span of K and V for 8 heads of 128 fp32 dims is 2 x SPAN x 4 KiB.
constexpr std::int64_t kSpanSlots = 16;
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

  const CacheView view = pool.slot_view();
  const CacheShape& cs = geo.slots().shape();
  const std::int32_t G = geo.slots().group_size();
  const std::int32_t d = s.head_dim;
  const std::int64_t bs = s.block_size;
  const std::int64_t part_floats = attention_partial_floats(cs);
  // One running partial per KV head + one for the current block.
  auto running = [&](std::int32_t h) { return attention_partial_from(workspace + h * part_floats, cs); };
  const AttentionPartial block = attention_partial_from(workspace + s.kv_heads * part_floats, cs);
  const std::int64_t used_blocks = (seq_len + bs - 1) / bs;

  for (std::int32_t h = 0; h < s.kv_heads; ++h) clear_partial(G, d, running(h));
  // Block-outer, head-inner: a block's slots hold the rows of all KV heads interleaved
  // ([slot][kv_head][dim]), so finishing every head of a block before the next one streams the
  // block's memory once while it is cache-resident instead of revisiting it once per head.
  // Large blocks are walked in spans of kSpanSlots so the span (all heads) stays in L1/L2.
  for (std::int64_t b = 0; b < used_blocks; ++b) {
    const std::int64_t rows = std::min(bs, seq_len - b * bs);  // last block may be partial
    for (std::int64_t r0 = 0; r0 < rows; r0 += kSpanSlots) {
      const std::int64_t slot0 = std::int64_t{table.blocks[b]} * bs + r0;
      const std::int64_t slot1 = slot0 + std::min(kSpanSlots, rows - r0);
      for (std::int32_t h = 0; h < s.kv_heads; ++h) {
        if (Status st = attention_partial(view, layer, h, slot0, slot1,
                                          q + std::int64_t{h} * G * d, scale, block);
            !ok(st))
          return st;
        fold_partial(G, d, block, running(h));
      }
    }
  }
  for (std::int32_t h = 0; h < s.kv_heads; ++h)
    normalise_partial(G, d, running(h), out + std::int64_t{h} * G * d);
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

}  // namespace kvb
