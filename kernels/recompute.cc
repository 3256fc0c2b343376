#include "kernels/recompute.h"

#include "kernels/attention.h"
#include "kernels/gemm.h"

namespace kvb {

namespace {

CacheShape recomputed_shape(const CacheShape& s, std::int64_t tokens) noexcept {
  CacheShape r;
  r.layers = 1;
  r.q_heads = s.q_heads;
  r.kv_heads = s.kv_heads;
  r.head_dim = s.head_dim;
  r.capacity = tokens;
  r.dtype = DType::kF32;
  r.layout = Layout::kPositionMajor;  // GEMM output rows are positions: [t][kv_head][dim]
  return r;
}

}  // namespace

std::int64_t recompute_workspace_floats(const CacheShape& s, std::int64_t tokens) noexcept {
  if (tokens < 0) return 0;
  return 2 * tokens * s.kv_heads * s.head_dim + attention_partial_floats(s);
}

Status recompute_decode_attention(const CacheShape& s, const float* x, std::int64_t tokens,
                                  std::int32_t hidden, const float* wk, const float* wv,
                                  const float* q, float scale, float* out,
                                  float* workspace) noexcept {
  if (x == nullptr || wk == nullptr || wv == nullptr || q == nullptr || out == nullptr ||
      workspace == nullptr)
    return Status::kNullArgument;
  if (tokens <= 0 || hidden <= 0) return Status::kInvalidShape;
  CacheGeometry geo;
  if (Status st = CacheGeometry::create(recomputed_shape(s, tokens), &geo); !ok(st)) return st;
  const std::int64_t n = std::int64_t{s.kv_heads} * s.head_dim;
  float* k = workspace;               // layer 0, K block: [tokens][kv_heads][dim]
  float* v = workspace + tokens * n;  // layer 0, V block follows K
  if (Status st = gemm_f32(x, wk, k, tokens, hidden, n); !ok(st)) return st;
  if (Status st = gemm_f32(x, wv, v, tokens, hidden, n); !ok(st)) return st;
  const CacheView view{&geo, workspace, nullptr};
  return decode_attention(view, 0, tokens, q, scale, out, workspace + 2 * tokens * n);
}

}  // namespace kvb
