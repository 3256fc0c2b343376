#include "kernels/paged_cache.h"

#include <algorithm>
#include <limits>
#include <numeric>
#include <random>

#include "kernels/cache_write.h"

namespace kvb {

CacheShape paged_row_shape(const PagedShape& p) noexcept {
  CacheShape s;
  s.layers = p.layers;
  s.q_heads = p.q_heads;
  s.kv_heads = p.kv_heads;
  s.head_dim = p.head_dim;
  s.capacity = p.num_blocks * p.block_size;
  s.dtype = p.dtype;
  s.layout = Layout::kPositionMajor;
  return s;
}

Status PagedGeometry::create(const PagedShape& s, PagedGeometry* out) noexcept {
  if (out == nullptr) return Status::kNullArgument;
  if (s.block_size <= 0 || s.num_blocks <= 0) return Status::kInvalidShape;
  // Block ids are int32 in block tables; slots must fit int64 without overflow.
  if (s.num_blocks > std::numeric_limits<std::int32_t>::max() ||
      s.num_blocks > std::numeric_limits<std::int64_t>::max() / s.block_size)
    return Status::kInvalidShape;
  PagedGeometry g;
  if (Status st = CacheGeometry::create(paged_row_shape(s), &g.slots_); !ok(st)) return st;
  g.shape_ = s;
  *out = g;
  return Status::kOk;
}

Status check_block_table(const PagedGeometry& geo, BlockTable table,
                         std::int64_t seq_len) noexcept {
  if (seq_len < 0 || table.size < 0) return Status::kOutOfRange;
  if (table.size > 0 && table.blocks == nullptr) return Status::kNullArgument;
  const std::int64_t bs = geo.shape().block_size;
  const std::int64_t needed = (seq_len + bs - 1) / bs;
  if (needed > table.size) return Status::kOutOfRange;
  for (std::int64_t i = 0; i < needed; ++i)
    if (table.blocks[i] < 0 || table.blocks[i] >= geo.shape().num_blocks) return Status::kOutOfRange;
  return Status::kOk;
}

Status slots_for_positions(const PagedGeometry& geo, BlockTable table, std::int64_t first,
                           std::int64_t tokens, std::int64_t* slot_mapping) noexcept {
  if (first < 0 || tokens < 0) return Status::kOutOfRange;
  if (tokens > 0 && slot_mapping == nullptr) return Status::kNullArgument;
  if (Status st = check_block_table(geo, table, first + tokens); !ok(st)) return st;
  const std::int64_t bs = geo.shape().block_size;
  for (std::int64_t i = 0; i < tokens; ++i) {
    const std::int64_t p = first + i;
    slot_mapping[i] = std::int64_t{table.blocks[p / bs]} * bs + p % bs;
  }
  return Status::kOk;
}

Status paged_write(const PagedView& pool, std::int32_t layer, const std::int64_t* slot_mapping,
                   std::int64_t tokens, const float* k, const float* v) noexcept {
  if (pool.geometry == nullptr || pool.data == nullptr) return Status::kNullArgument;
  if (tokens < 0) return Status::kOutOfRange;
  if (tokens > 0 && (slot_mapping == nullptr || k == nullptr || v == nullptr))
    return Status::kNullArgument;
  const PagedShape& s = pool.geometry->shape();
  if (layer < 0 || layer >= s.layers) return Status::kOutOfRange;
  // Validate every slot first so a bad mapping writes nothing.
  for (std::int64_t i = 0; i < tokens; ++i)
    if (slot_mapping[i] < -1 || slot_mapping[i] >= pool.geometry->num_slots())
      return Status::kOutOfRange;
  const CacheView view = pool.slot_view();
  const std::int64_t token_elems = std::int64_t{s.kv_heads} * s.head_dim;
  for (std::int64_t i = 0; i < tokens; ++i) {
    if (slot_mapping[i] == -1) continue;
    if (Status st = append_token(view, layer, slot_mapping[i], k + i * token_elems,
                                 v + i * token_elems);
        !ok(st))
      return st;
  }
  return Status::kOk;
}

void assign_blocks(std::int64_t count, bool shuffled, std::uint64_t seed,
                   std::int32_t* blocks) noexcept {
  if (count <= 0 || blocks == nullptr) return;
  std::iota(blocks, blocks + count, 0);
  if (shuffled) {
    std::mt19937_64 rng(seed);
    std::shuffle(blocks, blocks + count, rng);
  }
}

}  // namespace kvb
