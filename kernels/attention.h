// Decode attention: one query token, q_heads query vectors of head_dim fp32, attending to the
// cached K/V rows of one layer: out_h = softmax(q_h . K^T * scale) . V over positions, where
// query head h uses KV head h / group_size. scale is normally 1/sqrt(head_dim).
#pragma once
#include <cstdint>

#include "kernels/cache_geometry.h"
#include "kernels/cost_model.h"

namespace kvb {

// Running state of online softmax for the G = group_size query heads of one KV head over a
// range of positions: max[g] (the shift of the exponentials: the range's largest score, or for
// fp32 and fp16 up to 8 below it), sum[g] (of exp(s - max)), acc[g * head_dim + d] (unnormalised).
// Storage belongs to the caller; attention_partial_floats() says how many floats it needs.
struct AttentionPartial {
  float* max = nullptr;
  float* sum = nullptr;
  float* acc = nullptr;
};
std::int64_t attention_partial_floats(const CacheShape& shape) noexcept;  // G * (2 + head_dim)
// Carves a partial out of `storage` (attention_partial_floats floats).
AttentionPartial attention_partial_from(float* storage, const CacheShape& shape) noexcept;

// Fast kernel (Highway, runtime dispatch). GQA-grouped: all G query heads that share
// `kv_head` are processed together, so each K and V row in [t0, t1) is read exactly once
// (groups of more than 32 heads are processed 32 heads per pass). Tiles of 16 positions:
// register-blocked scores, one vector exp per tile, one online-softmax rescale per tile,
// register-blocked V accumulation; K rows are software-prefetched from the score phase and V rows
// from the accumulation (or both from the score phase for 1-byte and fp32-sized rows at G <= 2),
// with the process-wide hint of kernels/sw_prefetch.h (PREFETCHT0 unless set).
// The tiles are read in the process-wide order of kernels/tile_order.h (linear unless set).
// q points at the G query vectors of this group ([G][head_dim], i.e. q + kv_head*G*head_dim of
// the full query). An empty range (t0 == t1) yields max=-inf, sum=0, acc=0.
// prefetch_to: where the caller goes on to read this head's rows [t1, prefetch_to) right after
// (its next range), the prefetch window runs on into them instead of stopping at t1, so the next
// call does not start with an empty window; prefetch_to <= t1 stops it at t1. It changes no
// result: only hints are issued past t1.
// Errors: kNullArgument (cache, data, q, out, or the row scales of int8/fp8/int4), kOutOfRange (layer, kv_head,
// t0 < 0, t0 > t1, t1 > capacity, prefetch_to > capacity).
Status attention_partial(const CacheView& cache, std::int32_t layer, std::int32_t kv_head,
                         std::int64_t t0, std::int64_t t1, const float* q, float scale,
                         AttentionPartial out, std::int64_t prefetch_to = 0) noexcept;

// Exact log-sum-exp merge of n partials of one group into `out` ([G][head_dim], normalised).
// Empty partials contribute nothing; if all are empty the output is zeros.
Status merge_partials(const CacheShape& shape, const AttentionPartial* parts, std::int32_t n,
                      float* out) noexcept;

// Whole layer on one thread: all KV heads over positions [0, context). workspace holds
// attention_partial_floats() floats. q and out are [q_heads][head_dim]. context 0 gives zeros.
Status decode_attention(const CacheView& cache, std::int32_t layer, std::int64_t context,
                        const float* q, float scale, float* out, float* workspace) noexcept;

// Sliding window held in a ring of W = capacity slots: attends to the last min(tokens, W)
// positions written with ring_append, where `tokens` is how many positions have been written.
// Attention does not depend on the order of positions (RoPE is applied before caching), so
// this is the fast kernel over the filled slots [0, min(tokens, W)).
Status decode_attention_window(const CacheView& cache, std::int32_t layer, std::int64_t tokens,
                               const float* q, float scale, float* out, float* workspace) noexcept;

// Plain scalar loop, one query head at a time (re-reads each KV head G times, as common
// implementations do): the baseline the fast kernel is benchmarked against.
Status decode_attention_scalar(const CacheView& cache, std::int32_t layer, std::int64_t context,
                               const float* q, float scale, float* out) noexcept;

// Double-precision oracle: decodes each row with the scalar codecs, materialises all scores,
// exact softmax. workspace holds `context` doubles. out is [q_heads][head_dim] doubles.
Status decode_attention_reference(const CacheView& cache, std::int32_t layer, std::int64_t context,
                                  const float* q, double scale, double* out,
                                  double* workspace) noexcept;

// Name of the Highway target the dispatched kernels run on ("AVX3_ZEN4", "AVX2", "NEON", ...).
const char* simd_target_name() noexcept;

// How int8 attention computes its scores: "AMX-INT8" where the CPU and OS allow AMX and it is
// switched on (KVBENCH_AMX=1; off by default until measured), else "FMA". Even with AMX, groups
// of more than 16 heads and head_dim not a multiple of 64 (or over 256) use the FMA path.
const char* attention_int8_path() noexcept;

}  // namespace kvb
