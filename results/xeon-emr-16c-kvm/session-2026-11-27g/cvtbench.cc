#include <immintrin.h>
#include <x86intrin.h>
#include <cstdio>
__attribute__((target("avx512f,avx512bf16"), noinline)) __m512i cvt_tp(int n, __m512 a, __m512 b) {
  __m512i acc0 = _mm512_setzero_si512(), acc1 = acc0, acc2 = acc0, acc3 = acc0;
  for (int i = 0; i < n; ++i) {
    acc0 = _mm512_xor_si512(acc0, (__m512i)_mm512_cvtne2ps_pbh(a, b));
    acc1 = _mm512_xor_si512(acc1, (__m512i)_mm512_cvtne2ps_pbh(b, a));
    acc2 = _mm512_xor_si512(acc2, (__m512i)_mm512_cvtne2ps_pbh(a, a));
    acc3 = _mm512_xor_si512(acc3, (__m512i)_mm512_cvtne2ps_pbh(b, b));
    __asm__ volatile("" : "+v"(a), "+v"(b));
  }
  return _mm512_xor_si512(_mm512_xor_si512(acc0, acc1), _mm512_xor_si512(acc2, acc3));
}
__attribute__((target("avx512f"), noinline)) __m512i fma_tp(int n, __m512 a, __m512 b) {
  __m512 acc0 = _mm512_setzero_ps(), acc1 = acc0, acc2 = acc0, acc3 = acc0;
  for (int i = 0; i < n; ++i) {
    acc0 = _mm512_fmadd_ps(a, b, acc0); acc1 = _mm512_fmadd_ps(a, b, acc1); acc2 = _mm512_fmadd_ps(a, b, acc2); acc3 = _mm512_fmadd_ps(a, b, acc3);
    __asm__ volatile("" : "+v"(a), "+v"(b));
  }
  return (__m512i)_mm512_add_ps(_mm512_add_ps(acc0, acc1), _mm512_add_ps(acc2, acc3));
}
int main() {
  __m512 a = _mm512_set1_ps(1.5f), b = _mm512_set1_ps(2.25f);
  for (int rep = 0; rep < 3; ++rep) {
    const int n = 10000000;
    auto t0 = __rdtsc(); auto r = cvt_tp(n, a, b); auto t1 = __rdtsc();
    auto r2 = fma_tp(n, a, b); auto t2 = __rdtsc();
    std::printf("vcvtne2ps2bf16: %.2f ticks each (4 chains); fma: %.2f ticks each (4 chains, latency-bound) %d %d\n", double(t1 - t0) / (4.0 * n), double(t2 - t1) / (4.0 * n), _mm512_reduce_add_epi32(r) & 1, _mm512_reduce_add_epi32(r2) & 1);
  }
}
