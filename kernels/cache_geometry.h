// Geometry of a layer-major KV cache: exact sizes and 64-bit offsets.
//
// Layouts (per layer, K block then V block):
//   head-major     [layer][K|V][kv_head][position][dim]   (reference layout: one KV head's
//                                                          rows are contiguous, so decode
//                                                          attention streams them)
//   position-major [layer][K|V][position][kv_head][dim]   (what append-friendly engines use)
// A row is head_dim elements, optionally padded to a multiple of 64 bytes (row_elems()).
// int8, fp8 and int4 caches keep one fp32 scale per row in a separate scale array, indexed
// [layer][K|V][kv_head][position] in both layouts. int4 packs two elements per byte, so its
// head_dim must be even (every row then starts on a byte).
#pragma once
#include <cstdint>

#include "kernels/dtype.h"
#include "kernels/status.h"

namespace kvb {

enum class Layout : std::uint8_t { kHeadMajor, kPositionMajor };
enum class KV : std::uint8_t { kKey = 0, kValue = 1 };

const char* layout_name(Layout l) noexcept;  // "head_major", "position_major"
bool parse_layout(const char* name, Layout* out) noexcept;

struct CacheShape {
  std::int32_t layers = 0;
  std::int32_t q_heads = 0;
  std::int32_t kv_heads = 0;
  std::int32_t head_dim = 0;
  std::int64_t capacity = 0;  // positions the cache can hold (ring size W for sliding windows)
  DType dtype = DType::kF32;
  Layout layout = Layout::kHeadMajor;
  bool pad_rows = false;      // pad each row to a multiple of 64 bytes
};

// 2 x layers x kv_heads x context x dtype_row_bytes(head_dim) (no padding, no scales): for
// int4 that is 2*L*H*T*D/2. Qwen3-0.6B (28, 8, 1024, 128, fp32) = 234,881,024.
std::int64_t kv_cache_bytes(std::int64_t layers, std::int64_t kv_heads, std::int64_t context,
                            std::int64_t head_dim, DType dtype) noexcept;

// The largest cache create() accepts (64 PiB), so byte offsets never overflow int64.
inline constexpr std::int64_t kMaxCacheBytes = std::int64_t{1} << 56;

class CacheGeometry {
 public:
  // Validates the shape (all dimensions > 0, q_heads % kv_heads == 0, head_dim even for int4,
  // at most kMaxCacheBytes; else kInvalidShape) and fills *out.
  static Status create(const CacheShape& shape, CacheGeometry* out) noexcept;

  const CacheShape& shape() const noexcept { return shape_; }
  std::int32_t group_size() const noexcept { return shape_.q_heads / shape_.kv_heads; }
  std::int32_t row_elems() const noexcept { return row_elems_; }     // head_dim, or padded
  std::int64_t row_bytes() const noexcept;  // dtype_row_bytes(dtype, row_elems)
  // Element strides inside one (layer, K|V) block.
  std::int64_t head_stride() const noexcept { return head_stride_; }
  std::int64_t position_stride() const noexcept { return position_stride_; }
  std::int64_t position_stride_bytes() const noexcept;  // bytes between consecutive positions

  // Offset, in elements from the start of the data array, of element `dim` of one row.
  // (Inline, like the two below: every cache write and attention call computes them.)
  std::int64_t element_offset(std::int32_t layer, KV kv, std::int32_t kv_head, std::int64_t position,
                              std::int32_t dim = 0) const noexcept {
    const std::int64_t block = std::int64_t{layer} * 2 + static_cast<std::int64_t>(kv);
    return block * kv_block_elems_ + kv_head * head_stride_ + position * position_stride_ + dim;
  }
  // Byte holding that element (for int4, the low nibble when dim is even, else the high one).
  std::int64_t byte_offset(std::int32_t layer, KV kv, std::int32_t kv_head, std::int64_t position,
                           std::int32_t dim = 0) const noexcept {
    return element_offset(layer, kv, kv_head, position, dim) * dtype_bits(shape_.dtype) / 8;
  }
  // Index into the fp32 scale array (dtypes with a row scale only).
  std::int64_t scale_index(std::int32_t layer, KV kv, std::int32_t kv_head,
                           std::int64_t position) const noexcept {
    const std::int64_t block = std::int64_t{layer} * 2 + static_cast<std::int64_t>(kv);
    return (block * shape_.kv_heads + kv_head) * shape_.capacity + position;
  }

  std::int64_t data_bytes() const noexcept;   // whole data array, padding included
  std::int64_t scale_bytes() const noexcept;  // scale array, 0 unless the dtype has row scales
  std::int64_t layer_data_bytes() const noexcept;
  // Bytes of K and V rows (payload + scales, padding excluded) one layer holds for `context` positions.
  std::int64_t kv_bytes_per_layer(std::int64_t context) const noexcept;

 private:
  CacheShape shape_{};
  std::int32_t row_elems_ = 0;
  std::int64_t head_stride_ = 0;
  std::int64_t position_stride_ = 0;
  std::int64_t kv_block_elems_ = 0;  // one (layer, K|V) block
};

// A cache in memory: geometry plus the caller's buffers. Kernels never own memory.
struct CacheView {
  const CacheGeometry* geometry = nullptr;
  void* data = nullptr;       // data_bytes() bytes, 64-byte aligned
  float* scales = nullptr;    // scale_bytes() bytes; may be null unless dtype_has_row_scale
};

}  // namespace kvb
