// scratch: 8 KV heads of one layer, G=2 fp32: 8 single calls against 4 pair calls (+ merges)
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>
#include "kernels/attention.h"
#include "kernels/cache_geometry.h"
using namespace kvb;
int main() {
  const int H = 8, G = 2, d = 128; const std::int64_t cap = 256;
  CacheShape s{.layers = 1, .q_heads = H * G, .kv_heads = H, .head_dim = d, .capacity = cap, .dtype = DType::kF32};
  CacheGeometry geo; if (!ok(CacheGeometry::create(s, &geo))) return 1;
  std::vector<float> data(geo.data_bytes() / 4 + 16);
  for (auto& x : data) x = (rand() % 2000) / 1000.0f - 1;
  CacheView v{&geo, data.data(), nullptr};
  std::vector<float> q(H * G * d); for (auto& x : q) x = (rand() % 2000) / 1000.0f - 1;
  const std::int64_t pfl = attention_partial_floats(s);
  std::vector<float> ws(H * pfl), out1(H * G * d), out2(H * G * d);
  auto part = [&](int h) { return attention_partial_from(ws.data() + h * pfl, s); };
  auto singles = [&](std::int64_t rows, float* out) {
    for (int h = 0; h < H; ++h) {
      AttentionPartial p = part(h);
      attention_partial(v, 0, h, 0, rows, q.data() + h * G * d, 0.088f, p);
      merge_partials(s, &p, 1, out + h * G * d);
    }
  };
  auto pairs = [&](std::int64_t rows, float* out) {
    for (int h = 0; h < H; h += 2) {
      AttentionPartial p = part(h), p2 = part(h + 1);
      if (!ok(attention_partial_pair(v, 0, h, h + 1, 0, rows, q.data() + h * G * d, q.data() + (h + 1) * G * d, 0.088f, p, p2))) { std::puts("pair failed"); std::exit(1); }
      merge_partials(s, &p, 1, out + h * G * d);
      merge_partials(s, &p2, 1, out + (h + 1) * G * d);
    }
  };
  for (int pass = 0; pass < 3; ++pass)
  for (std::int64_t rows : {4, 16, 36, 73, 141, 219}) {
    singles(rows, out1.data()); pairs(rows, out2.data());
    double maxd = 0; for (size_t i = 0; i < out1.size(); ++i) maxd = std::max(maxd, (double)std::fabs(out1[i] - out2[i]));
    double best[2] = {1e30, 1e30};
    for (int rep = 0; rep < 10; ++rep)
      for (int arm = 0; arm < 2; ++arm) {
        const int iters = 20000 / (rows + 4) + 100;
        auto t0 = std::chrono::steady_clock::now();
        for (int it = 0; it < iters; ++it) { if (arm) pairs(rows, out2.data()); else singles(rows, out1.data()); }
        double ns = std::chrono::duration<double, std::nano>(std::chrono::steady_clock::now() - t0).count() / iters / H;
        best[arm] = std::min(best[arm], ns);
      }
    std::printf("rows %3ld: single %7.1f ns/head, pair %7.1f ns/head, pair/single %.3f, max|diff| %.2g\n", (long)rows, best[0], best[1], best[1] / best[0], maxd);
  }
}
