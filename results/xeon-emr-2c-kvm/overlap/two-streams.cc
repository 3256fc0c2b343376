// Two-stream phased synthetic: like the attention kernel's K tile then V tile.
#include <immintrin.h>
#include <sys/mman.h>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <cstdint>
template <int F>
__attribute__((noinline)) float pass(const char* a, const char* b, size_t bytes, size_t phase, size_t dist) {
  __m512 s[8], c[8];
  for (int i = 0; i < 8; ++i) s[i] = c[i] = _mm512_setzero_ps();
  const __m512 h = _mm512_set1_ps(0.5f);
  for (size_t off = 0; off < bytes; off += phase) {
    for (int st = 0; st < (b ? 2 : 1); ++st) {
      const char* p = (st ? b : a) + off;
      for (size_t o = 0; o < phase; o += 512) {
        if (dist) for (int l = 0; l < 8; ++l) _mm_prefetch(p + o + dist + 64 * l, _MM_HINT_T0);
#pragma GCC unroll 8
        for (int k = 0; k < 8; ++k) {
          __m512 v = _mm512_load_ps((const float*)(p + o + 64 * k));
          s[k] = _mm512_add_ps(s[k], v);
#pragma GCC unroll 32
          for (int f = 0; f < F; ++f) c[(k + f) & 7] = _mm512_fmadd_ps(c[(k + f) & 7], h, v);
        }
      }
    }
  }
  __m512 t = _mm512_setzero_ps();
  for (int i = 0; i < 8; ++i) t = _mm512_add_ps(t, _mm512_add_ps(s[i], c[i]));
  return _mm512_reduce_add_ps(t);
}
template <int F> double best(const char* a, const char* b, size_t bytes, size_t phase, size_t dist, int reps) {
  double bt = 1e30; volatile float sink = 0;
  for (int r = 0; r < reps; ++r) {
    auto t0 = std::chrono::steady_clock::now();
    sink += pass<F>(a, b, bytes, phase, dist);
    double t = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    if (t < bt) bt = t;
  }
  return bt;
}
template <int F> void row(char* big, size_t half) {
  // ns per line: one stream over 2*half bytes; two phased streams of half each (phase 8K, 2K, 32K)
  size_t lines = 2 * half / 64;
  double one = best<F>(big, nullptr, 2 * half, 8192, 4096, 3) / lines * 1e9;
  double two8 = best<F>(big, big + half, half, 8192, 4096, 3) / lines * 1e9;
  double two2 = best<F>(big, big + half, half, 2048, 4096, 3) / lines * 1e9;
  double two32 = best<F>(big, big + half, half, 32768, 4096, 3) / lines * 1e9;
  static char small[16384 * 2] __attribute__((aligned(64)));
  double comp = best<F>(small, nullptr, 16384, 8192, 0, 2000) / 256 * 1e9;
  printf("F=%2d L1 %.2f | one %.2f | two@8K %.2f | two@2K %.2f | two@32K %.2f ns/line\n", F, comp, one, two8, two2, two32);
  fflush(stdout);
}
int main() {
  size_t half = size_t(1) << 29;  // 2 x 512 MiB
  char* big = (char*)aligned_alloc(1 << 21, 2 * half + (1 << 21));
  madvise(big, 2 * half, MADV_HUGEPAGE);
  for (size_t i = 0; i < (2 * half + (1 << 21)) / 4; ++i) ((float*)big)[i] = 1.0f;
  row<0>(big, half); row<4>(big, half); row<8>(big, half); row<12>(big, half); row<16>(big, half);
}
