#include "kernels/chunked_attention.h"

#include <algorithm>

#include "kernels/attention.h"
#include "kernels/partial_fold.h"

namespace kvb {

std::int64_t chunked_attention_workspace_floats(const CacheShape& s, std::int32_t tq) noexcept {
  if (s.kv_heads <= 0 || s.head_dim <= 0 || tq <= 0) return 0;
  const std::int64_t G = s.q_heads / s.kv_heads;
  const std::int64_t d = s.head_dim;
  return tq * G * d + tq * G * (2 + d) + G * (2 + d);
}

Status chunked_decode_attention(const CacheView& cache, std::int32_t layer, std::int64_t prefix,
                                std::int32_t tq, const float* q, float scale, float* out,
                                float* workspace) noexcept {
  if (cache.geometry == nullptr || cache.data == nullptr) return Status::kNullArgument;
  if (q == nullptr || out == nullptr || workspace == nullptr) return Status::kNullArgument;
  const CacheShape& s = cache.geometry->shape();
  if (tq <= 0) return Status::kInvalidShape;
  if (layer < 0 || layer >= s.layers) return Status::kOutOfRange;
  if (prefix < 0 || prefix > s.capacity - tq) return Status::kOutOfRange;

  // Same storage, tq times the query heads: the tile loop then treats all tq * G query vectors
  // of a KV head as one group and reads each prefix row once. Storage strides do not depend on
  // q_heads, so the wide view addresses the same rows.
  CacheShape wide_shape = s;
  wide_shape.q_heads = s.q_heads * tq;
  CacheGeometry wide;
  if (Status st = CacheGeometry::create(wide_shape, &wide); !ok(st)) return st;
  const CacheView wide_view{&wide, cache.data, cache.scales};

  const std::int32_t G = cache.geometry->group_size();
  const std::int32_t d = s.head_dim;
  const std::int64_t group_elems = std::int64_t{G} * d;
  const std::int64_t token_elems = std::int64_t{s.q_heads} * d;
  float* qg = workspace;  // [tq][G][d] queries of one KV head
  const AttentionPartial prefix_part = attention_partial_from(qg + tq * group_elems, wide_shape);
  const AttentionPartial tail_part =
      attention_partial_from(qg + tq * group_elems + attention_partial_floats(wide_shape), s);

  for (std::int32_t h = 0; h < s.kv_heads; ++h) {
    for (std::int32_t i = 0; i < tq; ++i) {
      const float* src = q + i * token_elems + h * group_elems;
      std::copy(src, src + group_elems, qg + i * group_elems);
    }
    if (Status st = attention_partial(wide_view, layer, h, 0, prefix, qg, scale, prefix_part);
        !ok(st))
      return st;
    for (std::int32_t i = 0; i < tq; ++i) {
      if (Status st = attention_partial(cache, layer, h, prefix, prefix + i + 1,
                                        qg + i * group_elems, scale, tail_part);
          !ok(st))
        return st;
      const AttentionPartial mine = partial_slice(prefix_part, i * G, d);
      fold_partial(G, d, tail_part, mine);
      normalise_partial(G, d, mine, out + i * token_elems + h * group_elems);
    }
  }
  return Status::kOk;
}

}  // namespace kvb
