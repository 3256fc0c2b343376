// Record of a measurement, not part of the build. Times attention_partial (kernels/attention.h)
// over L layers x 8 KV heads of a Qwen3-0.6B-shaped cache (head_dim 128), G query heads per KV
// head, every call over positions [0, CTX), each followed by merge_partials when MERGE is 1.
// Prints the best of REPS passes as ns per (position, KV head) and GB/s of K+V (row scales
// included). Linked against one build of kernels/attention.cc (make_variants.py makes copies with
// phases knocked out; timing only, their results are wrong on purpose).
//   phase_harness L CTX G fp32|fp16|bf16|int8 REPS [MERGE]
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "kernels/attention.h"
#include "kernels/cache_geometry.h"
#include "kernels/dtype.h"

using namespace kvb;

int main(int argc, char** argv) {
  if (argc < 6) {
    std::fprintf(stderr, "usage: %s L CTX G fp32|fp16|bf16|int8 REPS [MERGE]\n", argv[0]);
    return 2;
  }
  const int layers = std::atoi(argv[1]);
  const long ctx = std::atol(argv[2]);
  const int G = std::atoi(argv[3]);
  const char* dts = argv[4];
  const int reps = std::atoi(argv[5]);
  const bool merge = argc > 6 ? std::atoi(argv[6]) != 0 : true;
  DType dt = DType::kF32;
  if (!std::strcmp(dts, "fp16")) dt = DType::kF16;
  else if (!std::strcmp(dts, "bf16")) dt = DType::kBF16;
  else if (!std::strcmp(dts, "int8")) dt = DType::kI8;
  CacheShape s;
  s.layers = layers; s.kv_heads = 8; s.q_heads = 8 * G; s.head_dim = 128; s.capacity = ctx; s.dtype = dt;
  CacheGeometry geo;
  if (!ok(CacheGeometry::create(s, &geo))) return 2;
  const std::size_t align = 2u << 20;
  const std::size_t nbytes = (geo.data_bytes() + align - 1) / align * align;
  void* data = std::aligned_alloc(align, nbytes);
  float* scales = geo.scale_bytes() ? static_cast<float*>(std::aligned_alloc(64, (geo.scale_bytes() + 63) / 64 * 64)) : nullptr;
  // Random mantissas with a fixed exponent byte (fp32 about 2^-7, fp16/bf16 about 1), random int8 codes.
  const unsigned long long mask = dt == DType::kF32 ? 0x00FFFFFF00FFFFFFull : dt == DType::kI8 ? ~0ull : 0x00FF00FF00FF00FFull;
  const unsigned long long pat = dt == DType::kF32 ? 0x3C0000003C000000ull : dt == DType::kI8 ? 0ull : 0x3C003C003C003C00ull;
  unsigned long long x = 88172645463325252ull;
  auto* w = static_cast<unsigned long long*>(data);
  for (long i = 0; i < geo.data_bytes() / 8; ++i) {
    x ^= x << 13; x ^= x >> 7; x ^= x << 17;
    w[i] = (x & mask) | pat;
  }
  if (scales) for (long i = 0; i < geo.scale_bytes() / 4; ++i) scales[i] = 0.01f;
  const CacheView view{&geo, data, scales};
  std::vector<float> q(std::size_t(8) * G * 128 * layers);
  for (auto& v : q) v = std::rand() / float(RAND_MAX) - 0.5f;
  std::vector<float> ws(attention_partial_floats(s) + 64), out(std::size_t(G) * 128);
  AttentionPartial part = attention_partial_from(ws.data(), s);
  double best = 1e30;
  for (int r = 0; r < reps; ++r) {
    const auto t0 = std::chrono::steady_clock::now();
    for (int l = 0; l < layers; ++l)
      for (int h = 0; h < 8; ++h) {
        attention_partial(view, l, h, 0, ctx, q.data() + (std::size_t(l) * 8 + h) * G * 128, 0.088f, part);
        if (merge) merge_partials(s, &part, 1, out.data());
      }
    best = std::min(best, std::chrono::duration<double, std::nano>(std::chrono::steady_clock::now() - t0).count());
  }
  std::printf("%s L%d ctx%ld G%d: %.2f ns/pos  %.1f GB/s\n", dts, layers, ctx, G, best / (double(layers) * 8 * ctx),
              geo.kv_bytes_per_layer(ctx) * layers / best);
  return 0;
}
