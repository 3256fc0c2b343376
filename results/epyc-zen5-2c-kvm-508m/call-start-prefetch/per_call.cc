// scratch: per-call cost of attention_partial, 8 KV heads of one layer in sequence, G=2, fp32
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <vector>
#include <x86intrin.h>
#include "kernels/attention.h"
#include "kernels/cache_geometry.h"
#include "kernels/cache_write.h"
using namespace kvb;
int main(int argc, char** argv) {
  DType dt = argc > 1 && std::string(argv[1]) == "int8" ? DType::kI8 : DType::kF32;
  const int H = 8, G = 2, d = 128; const std::int64_t cap = 256;
  CacheShape s{.layers = 1, .q_heads = H * G, .kv_heads = H, .head_dim = d, .capacity = cap, .dtype = dt};
  CacheGeometry geo; if (!ok(CacheGeometry::create(s, &geo))) return 1;
  std::vector<unsigned char> data(geo.data_bytes() + 64);
  std::vector<float> scales(geo.scale_bytes() / 4 + 16, 0.01f);
  for (auto& b : data) b = static_cast<unsigned char>(rand() & 0x3f);
  CacheView v{&geo, data.data(), scales.data()};
  if (dt == DType::kF32) { float* f = (float*)data.data(); for (size_t i = 0; i < geo.data_bytes() / 4; ++i) f[i] = (rand() % 2000) / 1000.0f - 1; }
  std::vector<float> q(H * G * d); for (auto& x : q) x = (rand() % 2000) / 1000.0f - 1;
  std::vector<float> ws(H * attention_partial_floats(s)); std::vector<float> out(H * G * d);
  for (std::int64_t rows : {0, 1, 4, 16, 36, 73, 141}) {
    double best = 1e30;
    for (int rep = 0; rep < 7; ++rep) {
      const int iters = 20000 / (rows + 4) + 100;
      auto t0 = std::chrono::steady_clock::now();
      for (int it = 0; it < iters; ++it)
        for (int h = 0; h < H; ++h) {
          AttentionPartial p = attention_partial_from(ws.data() + h * attention_partial_floats(s), s);
          attention_partial(v, 0, h, 0, rows, q.data() + h * G * d, 0.088f, p);
          merge_partials(s, &p, 1, out.data() + h * G * d);
        }
      double ns = std::chrono::duration<double, std::nano>(std::chrono::steady_clock::now() - t0).count() / iters / H;
      best = std::min(best, ns);
    }
    std::printf("%s rows %3ld: %7.1f ns per call+merge, %6.2f ns/pos\n", dt == DType::kF32 ? "fp32" : "int8", (long)rows, best, rows ? best / rows : 0.0);
  }
}
