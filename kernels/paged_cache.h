// Paged KV cache (vLLM-style). Each layer's K and V live in a pool of fixed-size blocks,
//   pool [layer][K|V][num_blocks][block_size][kv_head][dim],
// and each sequence owns a block table mapping its logical blocks (position / block_size) to
// physical ones. Tokens are written through a slot mapping (slot = block * block_size + offset).
//
// Because a slot indexes [slot][kv_head][dim], the pool is exactly a position-major cache whose
// positions are slots; slot_view() exposes it as one, so every row decoder, write path and
// attention tile of kernels/ works on it unchanged.
#pragma once
#include <cstdint>

#include "kernels/cache_geometry.h"

namespace kvb {

struct PagedShape {
  std::int32_t layers = 0;
  std::int32_t q_heads = 0;
  std::int32_t kv_heads = 0;
  std::int32_t head_dim = 0;
  std::int64_t num_blocks = 0;  // physical blocks in the pool (per layer and K|V)
  std::int32_t block_size = 0;  // positions per block; engines use 8..128
  DType dtype = DType::kF32;
};

// The CacheShape (layers, heads, dims, dtype) a paged pool's rows have: a position-major cache
// whose positions are the pool's slots.
CacheShape paged_row_shape(const PagedShape& shape) noexcept;

class PagedGeometry {
 public:
  // Validates the shape (block_size > 0, num_blocks > 0, the CacheShape rules) and fills *out.
  static Status create(const PagedShape& shape, PagedGeometry* out) noexcept;

  const PagedShape& shape() const noexcept { return shape_; }
  // The pool as a position-major cache with capacity num_blocks * block_size.
  const CacheGeometry& slots() const noexcept { return slots_; }
  std::int64_t num_slots() const noexcept { return slots_.shape().capacity; }

 private:
  PagedShape shape_{};
  CacheGeometry slots_{};
};

// A pool in memory: geometry plus the caller's buffers (slots().data_bytes(), scale_bytes()).
struct PagedView {
  const PagedGeometry* geometry = nullptr;
  void* data = nullptr;
  float* scales = nullptr;  // int8 only
  CacheView slot_view() const noexcept {
    return {geometry ? &geometry->slots() : nullptr, data, scales};
  }
};

// One sequence's logical -> physical block mapping.
struct BlockTable {
  const std::int32_t* blocks = nullptr;
  std::int64_t size = 0;  // logical blocks
};

// Checks that `table` covers `seq_len` positions and names only blocks of the pool.
Status check_block_table(const PagedGeometry& geo, BlockTable table, std::int64_t seq_len) noexcept;

// slot_mapping[i] = slot of logical position first + i of the sequence owning `table`.
Status slots_for_positions(const PagedGeometry& geo, BlockTable table, std::int64_t first,
                           std::int64_t tokens, std::int64_t* slot_mapping) noexcept;

// Writes `tokens` tokens' K and V ([tokens][kv_heads][head_dim] fp32 each) of one layer to
// their slots. A slot of -1 means "already cached" (prefix sharing) and is skipped; any other
// slot outside [0, num_slots) is kOutOfRange and nothing is written.
Status paged_write(const PagedView& pool, std::int32_t layer, const std::int64_t* slot_mapping,
                   std::int64_t tokens, const float* k, const float* v) noexcept;

// Physical block order for `count` logical blocks: 0, 1, 2, ... (a fresh pool) or a seeded
// random permutation of [0, count) (a fragmented pool after many allocations and frees).
void assign_blocks(std::int64_t count, bool shuffled, std::uint64_t seed,
                   std::int32_t* blocks) noexcept;

}  // namespace kvb
