#include "kernels/cost_model.h"

namespace kvb {

namespace {
constexpr std::int64_t kF32 = sizeof(float);
}  // namespace

Cost attention_cost(const CacheShape& s, std::int64_t context) noexcept {
  const std::int64_t d = s.head_dim;
  std::int64_t row_bytes = dtype_row_bytes(s.dtype, d);
  if (dtype_has_row_scale(s.dtype)) row_bytes += kF32;
  Cost c;
  c.bytes_read = 2 * std::int64_t{s.kv_heads} * context * row_bytes  // K and V rows (+ scales)
                 + std::int64_t{s.q_heads} * d * kF32;                  // queries
  c.bytes_written = std::int64_t{s.q_heads} * d * kF32;                // outputs
  c.flops = std::int64_t{s.q_heads} * context * (4 * d + kSoftmaxFlopsPerScore) +
            std::int64_t{s.q_heads} * d;  // final 1/sum normalisation
  return c;
}

Cost append_cost(const CacheShape& s) noexcept { return prefill_copy_cost(s, 1); }

Cost append_memcpy_cost(const CacheShape& s) noexcept {
  Cost c;
  c.bytes_written = append_cost(s).bytes_written;
  c.bytes_read = c.bytes_written;
  return c;
}

Cost prefill_copy_cost(const CacheShape& s, std::int64_t tokens) noexcept {
  const std::int64_t rows = 2 * std::int64_t{s.kv_heads} * tokens;
  Cost c;
  c.bytes_read = rows * s.head_dim * kF32;
  c.bytes_written = rows * dtype_row_bytes(s.dtype, s.head_dim);
  if (dtype_has_row_scale(s.dtype)) c.bytes_written += 2 * std::int64_t{s.kv_heads} * tokens * kF32;
  c.flops = 0;  // encoding is data movement, not arithmetic, in this model
  return c;
}

Cost decode_step_cost(const CacheShape& s, std::int64_t context) noexcept {
  Cost per_layer = append_cost(s);
  per_layer += attention_cost(s, context);
  return per_layer * s.layers;
}

}  // namespace kvb
