#include "kernels/cache_geometry.h"

#include <cstring>

namespace kvb {

namespace {
constexpr std::int64_t kRowAlignBytes = 64;
}  // namespace

const char* layout_name(Layout l) noexcept {
  return l == Layout::kHeadMajor ? "head_major" : "position_major";
}

bool parse_layout(const char* name, Layout* out) noexcept {
  if (name == nullptr) return false;
  for (Layout l : {Layout::kHeadMajor, Layout::kPositionMajor}) {
    if (std::strcmp(name, layout_name(l)) == 0) {
      if (out != nullptr) *out = l;
      return true;
    }
  }
  return false;
}

std::int64_t kv_cache_bytes(std::int64_t layers, std::int64_t kv_heads, std::int64_t context,
                            std::int64_t head_dim, DType dtype) noexcept {
  return 2 * layers * kv_heads * context * dtype_row_bytes(dtype, head_dim);
}

Status CacheGeometry::create(const CacheShape& s, CacheGeometry* out) noexcept {
  if (out == nullptr) return Status::kNullArgument;
  if (s.layers <= 0 || s.q_heads <= 0 || s.kv_heads <= 0 || s.head_dim <= 0 || s.capacity <= 0)
    return Status::kInvalidShape;
  if (s.q_heads % s.kv_heads != 0) return Status::kInvalidShape;
  const std::int64_t bits = dtype_bits(s.dtype);
  if (bits == 0) return Status::kUnsupported;
  if (s.layout != Layout::kHeadMajor && s.layout != Layout::kPositionMajor)
    return Status::kUnsupported;
  // Sub-byte dtypes: every row must start on a byte boundary.
  if (s.head_dim * bits % 8 != 0) return Status::kInvalidShape;

  std::int64_t row = s.head_dim;
  if (s.pad_rows) {
    const std::int64_t bytes = (dtype_row_bytes(s.dtype, row) + kRowAlignBytes - 1) /
                               kRowAlignBytes * kRowAlignBytes;
    row = bytes * 8 / bits;
  }
  // Check the total size step by step so no intermediate product overflows.
  std::int64_t total = dtype_row_bytes(s.dtype, row);
  for (std::int64_t factor : {std::int64_t{s.kv_heads}, s.capacity, std::int64_t{2},
                              std::int64_t{s.layers}}) {
    if (total > kMaxCacheBytes / factor) return Status::kInvalidShape;
    total *= factor;
  }

  CacheGeometry g;
  g.shape_ = s;
  g.row_elems_ = static_cast<std::int32_t>(row);
  if (s.layout == Layout::kHeadMajor) {
    g.position_stride_ = row;
    g.head_stride_ = s.capacity * row;
  } else {
    g.head_stride_ = row;
    g.position_stride_ = s.kv_heads * row;
  }
  g.kv_block_elems_ = s.kv_heads * s.capacity * row;
  *out = g;
  return Status::kOk;
}

std::int64_t CacheGeometry::row_bytes() const noexcept {
  return dtype_row_bytes(shape_.dtype, row_elems_);
}

std::int64_t CacheGeometry::position_stride_bytes() const noexcept {
  return position_stride_ * dtype_bits(shape_.dtype) / 8;
}

std::int64_t CacheGeometry::data_bytes() const noexcept {
  return std::int64_t{shape_.layers} * 2 * dtype_row_bytes(shape_.dtype, kv_block_elems_);
}

std::int64_t CacheGeometry::scale_bytes() const noexcept {
  if (!dtype_has_row_scale(shape_.dtype)) return 0;
  return std::int64_t{shape_.layers} * 2 * shape_.kv_heads * shape_.capacity *
         static_cast<std::int64_t>(sizeof(float));
}

std::int64_t CacheGeometry::layer_data_bytes() const noexcept {
  return 2 * dtype_row_bytes(shape_.dtype, kv_block_elems_);
}

std::int64_t CacheGeometry::kv_bytes_per_layer(std::int64_t context) const noexcept {
  std::int64_t row = dtype_row_bytes(shape_.dtype, shape_.head_dim);
  if (dtype_has_row_scale(shape_.dtype)) row += static_cast<std::int64_t>(sizeof(float));
  return 2 * std::int64_t{shape_.kv_heads} * context * row;
}

}  // namespace kvb
