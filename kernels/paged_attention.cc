#include "kernels/paged_attention.h"

#include <algorithm>

#include "kernels/attention.h"
#include "kernels/partial_fold.h"

namespace kvb {

std::int64_t paged_attention_workspace_floats(const PagedShape& s) noexcept {
  if (s.kv_heads <= 0 || s.head_dim <= 0) return 0;
  return 2 * std::int64_t{s.q_heads / s.kv_heads} * (2 + std::int64_t{s.head_dim});
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
  const AttentionPartial running = attention_partial_from(workspace, cs);
  const AttentionPartial block = attention_partial_from(workspace + part_floats, cs);
  const std::int64_t used_blocks = (seq_len + bs - 1) / bs;

  for (std::int32_t h = 0; h < s.kv_heads; ++h) {
    const std::int64_t off = std::int64_t{h} * G * d;
    clear_partial(G, d, running);
    for (std::int64_t b = 0; b < used_blocks; ++b) {
      const std::int64_t slot0 = std::int64_t{table.blocks[b]} * bs;
      const std::int64_t rows = std::min(bs, seq_len - b * bs);  // last block may be partial
      if (Status st = attention_partial(view, layer, h, slot0, slot0 + rows, q + off, scale, block);
          !ok(st))
        return st;
      fold_partial(G, d, block, running);
    }
    normalise_partial(G, d, running, out + off);
  }
  return Status::kOk;
}

}  // namespace kvb
