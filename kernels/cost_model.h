// The one cost model: bytes read, bytes written and flops each kernel performs, as a function
// of its shape. It feeds the CSV (bytes_read, bytes_written, flops, gbps, gflops), the roofline
// (arithmetic intensity) and the PAPI software-defined events. Counts are for the data the
// kernel must move (KV rows, their int8/fp8/int4 row scales, queries, outputs), not for cache-line effects.
#pragma once
#include <cstdint>

#include "kernels/cache_geometry.h"

namespace kvb {

struct Cost {
  std::int64_t bytes_read = 0;
  std::int64_t bytes_written = 0;
  std::int64_t flops = 0;
  Cost& operator+=(const Cost& o) noexcept {
    bytes_read += o.bytes_read; bytes_written += o.bytes_written; flops += o.flops; return *this;
  }
};
inline Cost operator*(Cost c, std::int64_t n) noexcept {
  c.bytes_read *= n; c.bytes_written *= n; c.flops *= n; return c;
}

// Flop convention: a fused multiply-add counts as 2 flops; exp, max and compare count as 1.
// Per query head and cached position attention does 2*d (q.k) + 2*d (p*v) + kSoftmaxFlopsPerScore
// (scale multiply, running max, exp, running sum), plus d per query head for the final 1/sum.
// Decoding fp16/bf16/int8/fp8/int4 and the row-scale multiplies are not counted (conversion, not
// arithmetic of the model). Writes count 0 flops.
inline constexpr std::int64_t kSoftmaxFlopsPerScore = 4;

// Decode attention for ONE layer over `context` cached positions (GQA-grouped: each K/V row
// read once). Bytes read: K and V rows (dtype_row_bytes(head_dim), + one fp32 scale per row for
// int8/fp8/int4) + the fp32 queries;
// bytes written: the fp32 outputs.
Cost attention_cost(const CacheShape& shape, std::int64_t context) noexcept;
// One-token append of K and V for all KV heads of ONE layer (fp32 in, dtype out).
Cost append_cost(const CacheShape& shape) noexcept;
// The append's memcpy reference for ONE layer: the append's encoded bytes (rows + scales)
// copied into place, so bytes read = bytes written = append_cost(shape).bytes_written.
Cost append_memcpy_cost(const CacheShape& shape) noexcept;
// Prefill bulk copy of `tokens` positions for ONE layer.
Cost prefill_copy_cost(const CacheShape& shape, std::int64_t tokens) noexcept;
// One decode step over all layers: append one token then attend over `context` positions
// (`context` counts the appended token if the caller attends to it).
Cost decode_step_cost(const CacheShape& shape, std::int64_t context) noexcept;

}  // namespace kvb
