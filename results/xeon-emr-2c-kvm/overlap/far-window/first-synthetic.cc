// Synthetic: stream a big buffer, F FMAs per 64-byte line, optional SW prefetch D bytes ahead.
#include <immintrin.h>
#include <sys/mman.h>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <cstdint>
template <int F, int PF>
__attribute__((noinline)) float run(const float* p, size_t bytes, size_t dist) {
  __m512 acc[8];
  for (int i = 0; i < 8; ++i) acc[i] = _mm512_set1_ps(0.f);
  const __m512 q = _mm512_set1_ps(1.0001f);
  const char* b = (const char*)p;
  for (size_t off = 0; off < bytes; off += 512) {  // 8 lines per iteration
    if (PF == 1) for (int l = 0; l < 8; ++l) _mm_prefetch(b + off + dist + 64 * l, _MM_HINT_T0);
    if (PF == 2) for (int l = 0; l < 8; ++l) _mm_prefetch(b + off + dist + 64 * l, _MM_HINT_T2);
    if (PF == 3) for (int l = 0; l < 8; ++l) { _mm_prefetch(b + off + 1024 + 64 * l, _MM_HINT_T0); _mm_prefetch(b + off + dist + 64 * l, _MM_HINT_T2); }
    if (PF == 4) for (int l = 0; l < 8; ++l) _mm_prefetch(b + off + dist + 64 * l, _MM_HINT_T1);
    if (PF == 5) for (int l = 0; l < 8; ++l) _mm_prefetch(b + off + dist + 64 * l, _MM_HINT_NTA);
    for (int l = 0; l < 8; ++l) {
      __m512 v = _mm512_load_ps((const float*)(b + off + 64 * l));
      acc[l] = _mm512_add_ps(acc[l], v);
#pragma GCC unroll 64
      for (int f = 0; f < F; ++f) acc[(l + f) & 7] = _mm512_fmadd_ps(v, q, acc[(l + f) & 7]);
    }
  }
  __m512 s = acc[0];
  for (int i = 1; i < 8; ++i) s = _mm512_add_ps(s, acc[i]);
  return _mm512_reduce_add_ps(s);
}
template <int F, int PF>
double measure(const float* p, size_t bytes, size_t dist, int reps) {
  double best = 1e30; volatile float sink = 0;
  for (int r = 0; r < reps; ++r) {
    auto t0 = std::chrono::steady_clock::now();
    sink += run<F, PF>(p, bytes, dist);
    auto t1 = std::chrono::steady_clock::now();
    double s = std::chrono::duration<double>(t1 - t0).count();
    if (s < best) best = s;
  }
  return best;
}
template <int F>
void row(float* big, size_t bytes, float* small, size_t sbytes) {
  double tc = 1e30;
  for (int k = 0; k < 3; ++k) { double t = measure<F, 0>(small, sbytes, 0, 4000); if (t < tc) tc = t; }
  auto ns = [&](double t) { return t / (bytes / 64) * 1e9; };
  printf("F=%2d comp %.2f |", F, tc / (sbytes / 64) * 1e9);
  printf(" none %.2f", ns(measure<F, 0>(big, bytes, 0, 3)));
  printf(" t0@4K %.2f", ns(measure<F, 1>(big, bytes, 4096, 3)));
  printf(" t2@4K %.2f", ns(measure<F, 2>(big, bytes, 4096, 3)));
  printf(" t2@8K %.2f", ns(measure<F, 2>(big, bytes, 8192, 3)));
  printf(" t2@16K %.2f", ns(measure<F, 2>(big, bytes, 16384, 3)));
  printf(" t2@32K %.2f", ns(measure<F, 2>(big, bytes, 32768, 3)));
  printf(" t1@8K %.2f", ns(measure<F, 4>(big, bytes, 8192, 3)));
  printf(" nta@4K %.2f", ns(measure<F, 5>(big, bytes, 4096, 3)));
  printf(" t0@1K+t2@8K %.2f", ns(measure<F, 3>(big, bytes, 8192, 3)));
  printf(" t0@1K+t2@16K %.2f\n", ns(measure<F, 3>(big, bytes, 16384, 3)));
  fflush(stdout);
}
int main() {
  size_t bytes = size_t(1) << 30;
  float* big = (float*)aligned_alloc(1 << 21, bytes + (1 << 21));
  madvise(big, bytes, MADV_HUGEPAGE);
  memset(big, 0, bytes + (1 << 21));
  for (size_t i = 0; i < bytes / 4; i += 1024) big[i] = 1.f;
  size_t sbytes = 16384;
  float* small = (float*)aligned_alloc(4096, sbytes + 16384);
  memset(small, 0, sbytes + 16384);
  row<0>(big, bytes, small, sbytes);
  row<1>(big, bytes, small, sbytes);
  row<2>(big, bytes, small, sbytes);
  row<4>(big, bytes, small, sbytes);
  row<6>(big, bytes, small, sbytes);
  row<8>(big, bytes, small, sbytes);
  row<12>(big, bytes, small, sbytes);
  row<16>(big, bytes, small, sbytes);
  row<24>(big, bytes, small, sbytes);
}
