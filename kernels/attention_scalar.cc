// Baseline decode attention: the straightforward loop many CPU engines start from. One query
// head at a time (so each KV head's rows are read G times), online softmax with one std::exp per
// position, element-by-element scalar decode.
#include <cmath>
#include <limits>

#include "kernels/attention.h"
#include "kernels/row_access.h"

namespace kvb {

Status decode_attention_scalar(const CacheView& cache, std::int32_t layer, std::int64_t context,
                               const float* q, float scale, float* out) noexcept {
  if (const Status st = check_decode_arguments(cache, layer, context, q, out); !ok(st)) return st;
  const CacheGeometry& geo = *cache.geometry;
  const CacheShape& s = geo.shape();
  const std::int32_t G = geo.group_size();
  const std::int32_t d = s.head_dim;
  const bool scaled = dtype_has_row_scale(s.dtype);
  const auto* base = static_cast<const unsigned char*>(cache.data);
  const std::int64_t row_step = geo.position_stride_bytes();

  for (std::int32_t h = 0; h < s.q_heads; ++h) {
    const std::int32_t kvh = h / G;
    const float* qh = q + std::int64_t{h} * d;
    float* acc = out + std::int64_t{h} * d;
    for (std::int32_t j = 0; j < d; ++j) acc[j] = 0.0f;
    float m = -std::numeric_limits<float>::infinity();
    float sum = 0.0f;
    const unsigned char* krow = base + geo.byte_offset(layer, KV::kKey, kvh, 0);
    const unsigned char* vrow = base + geo.byte_offset(layer, KV::kValue, kvh, 0);
    for (std::int64_t t = 0; t < context; ++t, krow += row_step, vrow += row_step) {
      float dot = 0.0f;
      for (std::int32_t j = 0; j < d; ++j) dot += qh[j] * decode_element(krow, s.dtype, j);
      if (scaled) dot *= cache.scales[geo.scale_index(layer, KV::kKey, kvh, t)];
      const float score = dot * scale;
      if (score > m) {
        const float corr = std::exp(m - score);
        sum *= corr;
        for (std::int32_t j = 0; j < d; ++j) acc[j] *= corr;
        m = score;
      }
      float p = std::exp(score - m);
      sum += p;
      if (scaled) p *= cache.scales[geo.scale_index(layer, KV::kValue, kvh, t)];
      for (std::int32_t j = 0; j < d; ++j) acc[j] += p * decode_element(vrow, s.dtype, j);
    }
    const float inv = sum > 0.0f ? 1.0f / sum : 0.0f;
    for (std::int32_t j = 0; j < d; ++j) acc[j] *= inv;
  }
  return Status::kOk;
}

}  // namespace kvb
