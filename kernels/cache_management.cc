#include "kernels/cache_management.h"

#include <cstring>

#include "kernels/stream_copy.h"

namespace kvb {

namespace {

bool same_but_capacity(const CacheShape& a, const CacheShape& b) noexcept {
  return a.layers == b.layers && a.q_heads == b.q_heads && a.kv_heads == b.kv_heads &&
         a.head_dim == b.head_dim && a.dtype == b.dtype && a.layout == b.layout &&
         a.pad_rows == b.pad_rows;
}

Status check_pair(const CacheGeometry& from, const CacheGeometry& to, std::int64_t tokens) noexcept {
  if (!same_but_capacity(from.shape(), to.shape())) return Status::kInvalidShape;
  if (tokens < 0 || tokens > from.shape().capacity || tokens > to.shape().capacity)
    return Status::kOutOfRange;
  return Status::kOk;
}

// A run is what stays contiguous when capacity changes: one (layer, K|V, kv_head) for
// head-major, one (layer, K|V) for position-major. Scales are always per (layer, K|V, kv_head).
struct Runs {
  std::int64_t count;
  std::int32_t heads_per_run;  // kv_heads for position-major, 1 for head-major
};
Runs runs_of(const CacheShape& s) noexcept {
  const std::int64_t blocks = std::int64_t{s.layers} * 2;
  if (s.layout == Layout::kHeadMajor) return {blocks * s.kv_heads, 1};
  return {blocks, s.kv_heads};
}

// Byte offset of run r's first row.
std::int64_t run_offset(const CacheGeometry& g, std::int64_t r) noexcept {
  const CacheShape& s = g.shape();
  if (s.layout == Layout::kHeadMajor) {
    const std::int64_t block = r / s.kv_heads;
    return g.byte_offset(static_cast<std::int32_t>(block / 2), static_cast<KV>(block % 2),
                         static_cast<std::int32_t>(r % s.kv_heads), 0);
  }
  return g.byte_offset(static_cast<std::int32_t>(r / 2), static_cast<KV>(r % 2), 0, 0);
}

std::int64_t run_bytes(const CacheGeometry& g, std::int64_t tokens) noexcept {
  return tokens * g.row_bytes() * runs_of(g.shape()).heads_per_run;
}

// Scale run: one (layer, K|V, kv_head) row of `capacity` floats.
std::int64_t scale_runs(const CacheShape& s) noexcept {
  return std::int64_t{s.layers} * 2 * s.kv_heads;
}

bool streams(StoreHint hint, std::int64_t bytes_written) noexcept {
  return hint == StoreHint::kStreaming ||
         (hint == StoreHint::kAuto && bytes_written > kStreamingThresholdBytes);
}

}  // namespace

std::int64_t grown_capacity(std::int64_t tokens, std::int64_t step) noexcept {
  if (tokens <= 0 || step <= 0) return 0;
  return (tokens + step - 1) / step * step;
}

Status repack_in_place(const CacheGeometry& from, const CacheGeometry& to, std::int64_t tokens,
                       void* data, float* scales, StoreHint hint) noexcept {
  if (data == nullptr) return Status::kNullArgument;
  if (Status st = check_pair(from, to, tokens); !ok(st)) return st;
  const CacheShape& s = from.shape();
  if (dtype_has_row_scale(s.dtype) && scales == nullptr) return Status::kNullArgument;
  auto* base = static_cast<unsigned char*>(data);
  const bool shrink = to.shape().capacity <= s.capacity;
  const std::int64_t n = runs_of(s).count;
  const std::int64_t bytes = run_bytes(from, tokens);
  // Destination offsets never exceed source offsets when shrinking (and never fall below them
  // when growing), so moving in that order never overwrites a run before it has moved.
  // Run r's source and destination may overlap: move_bytes has memmove semantics.
  const bool stream = streams(hint, n * bytes);
  for (std::int64_t i = 0; i < n; ++i) {
    const std::int64_t r = shrink ? i : n - 1 - i;
    move_bytes(base + run_offset(to, r), base + run_offset(from, r), bytes, stream);
  }
  if (stream) stream_fence();
  if (dtype_has_row_scale(s.dtype)) {
    const std::int64_t ns = scale_runs(s);
    for (std::int64_t i = 0; i < ns; ++i) {
      const std::int64_t r = shrink ? i : ns - 1 - i;
      std::memmove(scales + r * to.shape().capacity, scales + r * s.capacity,
                   static_cast<std::size_t>(tokens) * sizeof(float));
    }
  }
  return Status::kOk;
}

Status copy_cache_prefix(const CacheView& src, const CacheView& dst, std::int64_t tokens,
                         StoreHint hint) noexcept {
  if (src.geometry == nullptr || dst.geometry == nullptr || src.data == nullptr ||
      dst.data == nullptr)
    return Status::kNullArgument;
  if (Status st = check_pair(*src.geometry, *dst.geometry, tokens); !ok(st)) return st;
  const CacheShape& s = src.geometry->shape();
  const bool scaled = dtype_has_row_scale(s.dtype);
  if (scaled && (src.scales == nullptr || dst.scales == nullptr)) return Status::kNullArgument;
  if (src.data == dst.data) return Status::kInvalidShape;  // same buffer: use repack_in_place
  const auto* in = static_cast<const unsigned char*>(src.data);
  auto* out = static_cast<unsigned char*>(dst.data);
  const std::int64_t n = runs_of(s).count;
  const std::int64_t bytes = run_bytes(*src.geometry, tokens);
  const bool stream = streams(hint, n * bytes);
  for (std::int64_t r = 0; r < n; ++r)
    move_bytes(out + run_offset(*dst.geometry, r), in + run_offset(*src.geometry, r), bytes, stream);
  if (stream) stream_fence();
  if (scaled) {
    const std::int64_t ns = scale_runs(s);
    for (std::int64_t r = 0; r < ns; ++r)
      std::memcpy(dst.scales + r * dst.geometry->shape().capacity,
                  src.scales + r * s.capacity, static_cast<std::size_t>(tokens) * sizeof(float));
  }
  return Status::kOk;
}

Status clone_cache(const CacheView& src, const CacheView* dsts, std::int32_t n,
                   std::int64_t tokens, StoreHint hint) noexcept {
  if (n < 0) return Status::kOutOfRange;
  if (n > 0 && dsts == nullptr) return Status::kNullArgument;
  for (std::int32_t i = 0; i < n; ++i)
    if (Status st = copy_cache_prefix(src, dsts[i], tokens, hint); !ok(st)) return st;
  return Status::kOk;
}

}  // namespace kvb
