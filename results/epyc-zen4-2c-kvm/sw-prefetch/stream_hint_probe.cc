// Zen 4 guest probe (g++ -O2 -mavx512f stream_hint_probe.cc; taskset -c 0 ./a.out MiB): one fp32 stream,
// 2 FMAs per 64-byte vector as in decode at G = 2, against the prefetch hint and distance.
#include <immintrin.h>
#include <chrono>
#include <cstdio>
#include <cstdlib>
// One fp32 stream, 2 FMAs per zmm (G = 2 heads), prefetch hint H (0 none, 1 T0, 2 T1, 3 T2, 4 NTA)
// D bytes ahead, every S-th line.
template <int H, int D, int S>
__attribute__((noinline)) float run(const float* p, size_t n) {
  __m512 acc[4][2];
  __m512 q0 = _mm512_set1_ps(1.0f), q1 = _mm512_set1_ps(1.001f);
  for (int u = 0; u < 4; ++u) acc[u][0] = acc[u][1] = _mm512_setzero_ps();
  for (size_t i = 0; i < n; i += 64) {  // 256 bytes: 4 lines
    if (H) {
#pragma GCC unroll 4
      for (int l = 0; l < 4; l += S) {
        const char* a = (const char*)(p + i) + D + 64 * l;
        if (H == 1) _mm_prefetch(a, _MM_HINT_T0);
        if (H == 2) _mm_prefetch(a, _MM_HINT_T1);
        if (H == 3) _mm_prefetch(a, _MM_HINT_T2);
        if (H == 4) _mm_prefetch(a, _MM_HINT_NTA);
      }
    }
#pragma GCC unroll 4
    for (int u = 0; u < 4; ++u) {
      __m512 v = _mm512_loadu_ps(p + i + 16 * u);
      acc[u][0] = _mm512_fmadd_ps(v, q0, acc[u][0]);
      acc[u][1] = _mm512_fmadd_ps(v, q1, acc[u][1]);
    }
  }
  __m512 s = _mm512_setzero_ps();
  for (int u = 0; u < 4; ++u) s = _mm512_add_ps(s, _mm512_add_ps(acc[u][0], acc[u][1]));
  return _mm512_reduce_add_ps(s);
}
template <int H, int D, int S>
void bench(const float* p, size_t n, int reps) {
  double best = 1e30; float sink = 0;
  for (int r = 0; r < reps; ++r) {
    auto t0 = std::chrono::steady_clock::now();
    sink += run<H, D, S>(p, n);
    double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    if (s < best) best = s;
  }
  printf("hint=%d D=%6d every %d  %.1f GB/s (%g)\n", H, D, S, n * 4 / best / 1e9, sink * 0);
}
int main(int argc, char** argv) {
  size_t bytes = (argc > 1 ? atol(argv[1]) : 1024) << 20;
  size_t n = bytes / 4;
  float* p = (float*)aligned_alloc(4096, bytes + 65536);
  for (size_t i = 0; i < n + 16384; ++i) p[i] = 1e-6f * (i % 1000);
  int reps = bytes > (64 << 20) ? 5 : 100;
  for (int k = 0; k < 2; ++k) {
  bench<0, 0, 1>(p, n, reps);
  bench<1, 1024, 1>(p, n, reps); bench<1, 4096, 1>(p, n, reps); bench<1, 16384, 1>(p, n, reps);
  bench<2, 1024, 1>(p, n, reps); bench<2, 4096, 1>(p, n, reps); bench<2, 16384, 1>(p, n, reps);
  bench<3, 4096, 1>(p, n, reps); bench<3, 16384, 1>(p, n, reps);
  bench<4, 4096, 1>(p, n, reps);
  bench<1, 4096, 2>(p, n, reps); bench<1, 4096, 4>(p, n, reps);
  }
}
