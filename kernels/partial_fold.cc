#include "kernels/partial_fold.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace kvb {

void fold_partial(std::int32_t heads, std::int32_t head_dim, const AttentionPartial& from,
                  const AttentionPartial& into) noexcept {
  for (std::int32_t g = 0; g < heads; ++g) {
    if (from.sum[g] == 0.0f) continue;
    float* acc = into.acc + std::int64_t{g} * head_dim;
    const float* add = from.acc + std::int64_t{g} * head_dim;
    if (into.sum[g] == 0.0f) {  // nothing to rescale: take `from` as is
      into.max[g] = from.max[g];
      into.sum[g] = from.sum[g];
      std::copy(add, add + head_dim, acc);
      continue;
    }
    const float m = std::max(into.max[g], from.max[g]);
    const float wi = std::exp(into.max[g] - m);
    const float wf = std::exp(from.max[g] - m);
    into.max[g] = m;
    into.sum[g] = into.sum[g] * wi + from.sum[g] * wf;
    for (std::int32_t j = 0; j < head_dim; ++j) acc[j] = acc[j] * wi + add[j] * wf;
  }
}

void clear_partial(std::int32_t heads, std::int32_t head_dim, const AttentionPartial& p) noexcept {
  std::fill(p.max, p.max + heads, -std::numeric_limits<float>::infinity());
  std::fill(p.sum, p.sum + heads, 0.0f);
  std::fill(p.acc, p.acc + std::int64_t{heads} * head_dim, 0.0f);
}

void normalise_partial(std::int32_t heads, std::int32_t head_dim, const AttentionPartial& p,
                       float* out) noexcept {
  for (std::int32_t g = 0; g < heads; ++g) {
    const float inv = p.sum[g] > 0.0f ? 1.0f / p.sum[g] : 0.0f;
    const float* a = p.acc + std::int64_t{g} * head_dim;
    float* o = out + std::int64_t{g} * head_dim;
    for (std::int32_t j = 0; j < head_dim; ++j) o[j] = a[j] * inv;
  }
}

AttentionPartial partial_slice(const AttentionPartial& p, std::int32_t first,
                               std::int32_t head_dim) noexcept {
  AttentionPartial s;
  s.max = p.max + first;
  s.sum = p.sum + first;
  s.acc = p.acc + std::int64_t{first} * head_dim;
  return s;
}

}  // namespace kvb
