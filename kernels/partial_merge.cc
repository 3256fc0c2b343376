// merge_heads: merge_partials' passes over the output in the target's vectors.
#include "kernels/partial_merge.h"

#include <algorithm>
#include <cmath>
#include <limits>

#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "kernels/partial_merge.cc"
#include "hwy/foreach_target.h"  // IWYU pragma: keep
#include "hwy/highway.h"

HWY_BEFORE_NAMESPACE();
namespace kvb {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

void MergeHeads(const AttentionPartial* parts, std::int32_t n, std::int32_t G, std::int32_t d, float* out) {
  const hn::ScalableTag<float> df;
  const std::int32_t N = static_cast<std::int32_t>(hn::Lanes(df));
  // One pass over the output per non-empty partial, its weight exp(max_i - m) / sum folded into
  // one factor: with a single partial per head (one thread, or a head not split between threads)
  // the merge is one scaling pass. Fill, accumulate and scale passes cost Qwen3-0.6B fp32
  // decode with 73 positions per KV head 3-6 cycles per position on the Zen 5, this 0-3.
  // The passes in the target's vectors (they had been the baseline's 4 lanes), and the one
  // partial holding the maximum (the only one, with one thread) without exponentials: one KV
  // head's merge with G = 2 and head_dim 128 took 34 -> 16 ns with one partial, 69 -> 42 with two
  // of different maxima (Zen 5, scratch loop, best of 7 x 2M calls). Keeping the second
  // partial's weights for the scaling pass instead of calling exp again measured the same.
  for (std::int32_t g = 0; g < G; ++g) {
    float m = -std::numeric_limits<float>::infinity();
    for (std::int32_t i = 0; i < n; ++i)
      if (parts[i].sum[g] != 0.0f) m = std::max(m, parts[i].max[g]);  // empty ranges: sum 0
    // exp(0) is exactly 1: the partial holding the maximum takes no call.
    const auto weight = [&](std::int32_t i) {
      return parts[i].max[g] == m ? 1.0f : std::exp(parts[i].max[g] - m);
    };
    float sum = 0.0f;
    for (std::int32_t i = 0; i < n; ++i)
      if (parts[i].sum[g] != 0.0f) sum += weight(i) * parts[i].sum[g];
    float* o = out + std::int64_t{g} * d;
    if (!(sum > 0.0f)) {  // every range empty
      std::fill(o, o + d, 0.0f);
      continue;
    }
    const float inv = 1.0f / sum;
    bool first = true;
    for (std::int32_t i = 0; i < n; ++i) {
      if (parts[i].sum[g] == 0.0f) continue;
      const float w = weight(i) * inv;
      const float* a = parts[i].acc + std::int64_t{g} * d;
      const auto vw = hn::Set(df, w);
      std::int32_t j = 0;
      if (first) {
        for (; j + N <= d; j += N) hn::StoreU(hn::Mul(vw, hn::LoadU(df, a + j)), df, o + j);
        for (; j < d; ++j) o[j] = w * a[j];
      } else {
        for (; j + N <= d; j += N)
          hn::StoreU(hn::Add(hn::LoadU(df, o + j), hn::Mul(vw, hn::LoadU(df, a + j))), df, o + j);
        for (; j < d; ++j) o[j] += w * a[j];
      }
      first = false;
    }
  }
}

// NOLINTNEXTLINE(google-readability-namespace-comments)
}  // namespace HWY_NAMESPACE
}  // namespace kvb
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace kvb {

HWY_EXPORT(MergeHeads);

void merge_heads(const AttentionPartial* parts, std::int32_t n, std::int32_t heads,
                 std::int32_t head_dim, float* out) noexcept {
  HWY_DYNAMIC_DISPATCH(MergeHeads)(parts, n, heads, head_dim, out);
}

}  // namespace kvb
#endif  // HWY_ONCE
