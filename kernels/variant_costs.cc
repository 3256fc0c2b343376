#include "kernels/variant_costs.h"

namespace kvb {

namespace {
constexpr std::int64_t kF32 = sizeof(float);

// GEMM projecting `rows` hidden states to K and V (both): flops and bytes.
Cost projection_cost(const CacheShape& s, std::int32_t hidden, std::int64_t rows) noexcept {
  const std::int64_t n = std::int64_t{s.kv_heads} * s.head_dim;
  Cost c;
  c.flops = 2 * (2 * rows * hidden * n);
  c.bytes_read = rows * hidden * kF32 + 2 * std::int64_t{hidden} * n * kF32;
  c.bytes_written = 2 * rows * n * kF32;
  return c;
}
}  // namespace

Cost paged_attention_cost(const PagedShape& p, std::int64_t seq_len) noexcept {
  Cost c = attention_cost(paged_row_shape(p), seq_len);
  if (p.block_size > 0)
    c.bytes_read += (seq_len + p.block_size - 1) / p.block_size *
                    static_cast<std::int64_t>(sizeof(std::int32_t));
  return c;
}

Cost batched_attention_cost(const CacheShape& s, const std::int64_t* seq_lens,
                            std::int32_t batch) noexcept {
  Cost c;
  for (std::int32_t b = 0; b < batch && seq_lens != nullptr; ++b) c += attention_cost(s, seq_lens[b]);
  return c;
}

Cost chunked_attention_cost(const CacheShape& s, std::int64_t prefix, std::int32_t tq) noexcept {
  const Cost one = attention_cost(s, prefix + tq);  // K/V of prefix + tq rows, one token's q/out
  const std::int64_t q_bytes = std::int64_t{s.q_heads} * s.head_dim * kF32;
  Cost c;
  c.bytes_read = one.bytes_read + (tq - 1) * q_bytes;
  c.bytes_written = std::int64_t{tq} * q_bytes;
  const std::int64_t d = s.head_dim;
  // sum over i of (prefix + i + 1) scored positions
  const std::int64_t scored = std::int64_t{tq} * prefix + std::int64_t{tq} * (tq + 1) / 2;
  c.flops = std::int64_t{s.q_heads} * scored * (4 * d + kSoftmaxFlopsPerScore) +
            std::int64_t{tq} * s.q_heads * d;
  return c;
}

Cost cache_copy_cost(const CacheShape& s, std::int64_t tokens) noexcept {
  std::int64_t row = dtype_row_bytes(s.dtype, s.head_dim);
  if (dtype_has_row_scale(s.dtype)) row += kF32;
  Cost c;
  c.bytes_read = 2 * std::int64_t{s.layers} * s.kv_heads * tokens * row;
  c.bytes_written = c.bytes_read;
  return c;
}

Cost recompute_cost(const CacheShape& s, std::int32_t hidden, std::int64_t tokens) noexcept {
  CacheShape f = s;
  f.dtype = DType::kF32;
  Cost c = projection_cost(s, hidden, tokens);
  c += attention_cost(f, tokens);
  return c;
}

Cost cached_projection_step_cost(const CacheShape& s, std::int32_t hidden,
                                 std::int64_t tokens) noexcept {
  Cost c = projection_cost(s, hidden, 1);
  c += append_cost(s);
  c += attention_cost(s, tokens);
  return c;
}

}  // namespace kvb
