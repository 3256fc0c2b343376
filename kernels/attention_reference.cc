// Double-precision oracle: every score materialised, exact two-pass softmax.
#include <cmath>

#include "kernels/attention.h"
#include "kernels/row_access.h"

namespace kvb {

Status decode_attention_reference(const CacheView& cache, std::int32_t layer, std::int64_t context,
                                  const float* q, double scale, double* out,
                                  double* workspace) noexcept {
  if (const Status st = check_decode_arguments(cache, layer, context, q, out); !ok(st)) return st;
  const CacheGeometry& geo = *cache.geometry;
  const CacheShape& s = geo.shape();
  if (context > 0 && workspace == nullptr) return Status::kNullArgument;
  const std::int32_t G = geo.group_size();
  const std::int32_t d = s.head_dim;
  const bool scaled = dtype_has_row_scale(s.dtype);
  const auto* base = static_cast<const unsigned char*>(cache.data);

  for (std::int32_t h = 0; h < s.q_heads; ++h) {
    const std::int32_t kvh = h / G;
    const float* qh = q + std::int64_t{h} * d;
    double* oh = out + std::int64_t{h} * d;
    double m = -INFINITY;
    for (std::int64_t t = 0; t < context; ++t) {
      const void* krow = base + geo.byte_offset(layer, KV::kKey, kvh, t);
      const double ks = scaled ? cache.scales[geo.scale_index(layer, KV::kKey, kvh, t)] : 1.0;
      double dot = 0.0;
      for (std::int32_t j = 0; j < d; ++j)
        dot += double{qh[j]} * (double{decode_element(krow, s.dtype, j)} * ks);
      workspace[t] = dot * scale;
      if (workspace[t] > m) m = workspace[t];
    }
    double sum = 0.0;
    for (std::int64_t t = 0; t < context; ++t) {
      workspace[t] = std::exp(workspace[t] - m);
      sum += workspace[t];
    }
    for (std::int32_t j = 0; j < d; ++j) oh[j] = 0.0;
    for (std::int64_t t = 0; t < context; ++t) {
      const void* vrow = base + geo.byte_offset(layer, KV::kValue, kvh, t);
      const double vs = scaled ? cache.scales[geo.scale_index(layer, KV::kValue, kvh, t)] : 1.0;
      const double p = workspace[t] / sum;
      for (std::int32_t j = 0; j < d; ++j) oh[j] += p * (double{decode_element(vrow, s.dtype, j)} * vs);
    }
  }
  return Status::kOk;
}

}  // namespace kvb
