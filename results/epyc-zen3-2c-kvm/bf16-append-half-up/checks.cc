// scratch: the half-up bf16 append's per-call checks (tie: min of low words; NaN: float sum / int max / unord
// compare) against no check, on the append's geometry (28 layers x K,V x 8 heads, head stride = context x 256 B,
// position context - 1), THP-backed buffer; and the library's encode_rows on the same rows.
#include <immintrin.h>
#include <sys/mman.h>
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>
#include "kernels/dtype.h"
#include "kernels/row_encode.h"
using Clock = std::chrono::steady_clock;
alignas(64) static float src[2 * 8 * 128];
static unsigned char* base;
static long S, pos;
static int bad;
static inline uint16_t* row(int l, int kv, int h) { return (uint16_t*)(base + ((l * 2 + kv) * 8 + h) * S + pos * 256); }
// one call = 8 rows of one (layer, K|V) slot, as EncodeRowsBF16's half-up path is called
template <int kCheck>
__attribute__((noinline)) int call(const float* s, uint16_t* o, long ostride) {
  const __m256i half = _mm256_set1_epi32(0x8000), abs = _mm256_set1_epi32(0x7fffffff);
  __m256i m0 = _mm256_set1_epi16(-1), m1 = m0, x0 = _mm256_setzero_si256(), x1 = x0, x2 = x0, x3 = x0;
  __m256 f0 = _mm256_setzero_ps(), f1 = f0, f2 = f0, f3 = f0;
  for (int r = 0; r < 8; ++r) {
    const float* sr = s + r * 128; uint16_t* orow = o + r * ostride;
    if (kCheck == 3) {
      for (int j = 0; j < 128; j += 32) {
        __m256i a = _mm256_loadu_si256((const __m256i*)(sr + j)), b = _mm256_loadu_si256((const __m256i*)(sr + j + 8));
        __m256i c = _mm256_loadu_si256((const __m256i*)(sr + j + 16)), d = _mm256_loadu_si256((const __m256i*)(sr + j + 24));
        f0 = _mm256_add_ps(f0, _mm256_castsi256_ps(a)); f1 = _mm256_add_ps(f1, _mm256_castsi256_ps(b));
        f2 = _mm256_add_ps(f2, _mm256_castsi256_ps(c)); f3 = _mm256_add_ps(f3, _mm256_castsi256_ps(d));
        a = _mm256_add_epi32(a, half); b = _mm256_add_epi32(b, half); c = _mm256_add_epi32(c, half); d = _mm256_add_epi32(d, half);
        m0 = _mm256_min_epu16(m0, _mm256_min_epu16(a, b)); m1 = _mm256_min_epu16(m1, _mm256_min_epu16(c, d));
        _mm256_storeu_si256((__m256i*)(orow + j), _mm256_permute4x64_epi64(_mm256_packus_epi32(_mm256_srli_epi32(a, 16), _mm256_srli_epi32(b, 16)), 0xd8));
        _mm256_storeu_si256((__m256i*)(orow + j + 16), _mm256_permute4x64_epi64(_mm256_packus_epi32(_mm256_srli_epi32(c, 16), _mm256_srli_epi32(d, 16)), 0xd8));
      }
      continue;
    }
    for (int j = 0; j < 128; j += 16) {
      __m256i a = _mm256_loadu_si256((const __m256i*)(sr + j)), b = _mm256_loadu_si256((const __m256i*)(sr + j + 8));
      if (kCheck == 1) { f0 = _mm256_add_ps(f0, _mm256_castsi256_ps(a)); f1 = _mm256_add_ps(f1, _mm256_castsi256_ps(b)); }
      if (kCheck == 2) { x0 = _mm256_max_epu32(x0, _mm256_and_si256(a, abs)); x1 = _mm256_max_epu32(x1, _mm256_and_si256(b, abs)); }
      if (kCheck == 5) { f0 = _mm256_add_ps(f0, _mm256_loadu_ps(sr + j)); f1 = _mm256_add_ps(f1, _mm256_loadu_ps(sr + j + 8));
        a = _mm256_add_epi32(_mm256_loadu_si256((const __m256i*)(sr + j)), half); b = _mm256_add_epi32(_mm256_loadu_si256((const __m256i*)(sr + j + 8)), half);
        m0 = _mm256_min_epu16(m0, a); m1 = _mm256_min_epu16(m1, b);
        _mm256_storeu_si256((__m256i*)(orow + j), _mm256_permute4x64_epi64(_mm256_packus_epi32(_mm256_srli_epi32(a, 16), _mm256_srli_epi32(b, 16)), 0xd8));
        continue; }
      if (kCheck == 4) { f0 = _mm256_or_ps(f0, _mm256_cmp_ps(_mm256_castsi256_ps(a), _mm256_castsi256_ps(b), _CMP_UNORD_Q)); }
      a = _mm256_add_epi32(a, half); b = _mm256_add_epi32(b, half);
      if (kCheck) { m0 = _mm256_min_epu16(m0, a); m1 = _mm256_min_epu16(m1, b); }
      _mm256_storeu_si256((__m256i*)(orow + j), _mm256_permute4x64_epi64(_mm256_packus_epi32(_mm256_srli_epi32(a, 16), _mm256_srli_epi32(b, 16)), 0xd8));
    }
  }
  if (kCheck == 0) return 0;
  __m256i lo = _mm256_and_si256(_mm256_min_epu16(m0, m1), _mm256_set1_epi32(0xffff));
  int tie = _mm256_movemask_epi8(_mm256_cmpeq_epi32(lo, _mm256_setzero_si256()));
  int nan = 0;
  if (kCheck == 1 || kCheck == 3 || kCheck == 5) { __m256 f = _mm256_add_ps(_mm256_add_ps(f0, f1), _mm256_add_ps(f2, f3)); nan = _mm256_movemask_ps(_mm256_cmp_ps(f, f, _CMP_UNORD_Q)); }
  if (kCheck == 2) nan = _mm256_movemask_epi8(_mm256_cmpgt_epi32(_mm256_max_epu32(x0, x1), _mm256_set1_epi32(0x7f800000)));
  if (kCheck == 4) nan = _mm256_movemask_ps(f0);
  return tie | nan;
}
static volatile long vrows = 8, vwhole = 128;
__attribute__((noinline)) int rolled(const float* src, uint16_t* dst, long dst_stride) {
  const long rows = vrows, whole = vwhole;
  const __m256i half = _mm256_set1_epi32(0x8000);
  __m256i m0 = _mm256_set1_epi16(-1), m1 = m0; __m256 f0 = _mm256_setzero_ps(), f1 = f0;
  for (long r = 0; r < rows; ++r) {
    const float* s = src + r * 128; uint16_t* o = dst + r * dst_stride;
#pragma GCC unroll 1
    for (long j = 0; j < whole; j += 16) {
      __m256i a = _mm256_loadu_si256((const __m256i*)(s + j)), b = _mm256_loadu_si256((const __m256i*)(s + j + 8));
      f0 = _mm256_add_ps(f0, _mm256_castsi256_ps(a)); f1 = _mm256_add_ps(f1, _mm256_castsi256_ps(b));
      a = _mm256_add_epi32(a, half); b = _mm256_add_epi32(b, half);
      m0 = _mm256_min_epu16(m0, a); m1 = _mm256_min_epu16(m1, b);
      _mm256_storeu_si256((__m256i*)(o + j), _mm256_permute4x64_epi64(_mm256_packus_epi32(_mm256_srli_epi32(a, 16), _mm256_srli_epi32(b, 16)), 0xd8));
    }
  }
  __m256i lo = _mm256_and_si256(_mm256_min_epu16(m0, m1), _mm256_set1_epi32(0xffff));
  __m256 f = _mm256_add_ps(f0, f1);
  return _mm256_movemask_epi8(_mm256_cmpeq_epi32(lo, _mm256_setzero_si256())) | _mm256_movemask_ps(_mm256_cmp_ps(f, f, _CMP_UNORD_Q));
}
__attribute__((noinline)) int rolled1(const float* src, uint16_t* dst, long dst_stride) {
  const long rows = vrows, whole = vwhole;
  const __m256i half = _mm256_set1_epi32(0x8000);
  __m256i m0 = _mm256_set1_epi16(-1), m1 = m0; __m256 f0 = _mm256_setzero_ps(), f1 = f0;
  for (long r = 0; r < rows; ++r) {
    const float* s = src + r * 128; uint16_t* o = dst + r * dst_stride;
#pragma GCC unroll 1
    for (long j = 0; j < whole; j += 16) {
      __m256i a = _mm256_loadu_si256((const __m256i*)(s + j)), b = _mm256_loadu_si256((const __m256i*)(s + j + 8));
      asm("" : "+x"(a), "+x"(b));
      f0 = _mm256_add_ps(f0, _mm256_castsi256_ps(a)); f1 = _mm256_add_ps(f1, _mm256_castsi256_ps(b));
      a = _mm256_add_epi32(a, half); b = _mm256_add_epi32(b, half);
      m0 = _mm256_min_epu16(m0, a); m1 = _mm256_min_epu16(m1, b);
      _mm256_storeu_si256((__m256i*)(o + j), _mm256_permute4x64_epi64(_mm256_packus_epi32(_mm256_srli_epi32(a, 16), _mm256_srli_epi32(b, 16)), 0xd8));
    }
  }
  __m256i lo = _mm256_and_si256(_mm256_min_epu16(m0, m1), _mm256_set1_epi32(0xffff));
  __m256 f = _mm256_add_ps(f0, f1);
  return _mm256_movemask_epi8(_mm256_cmpeq_epi32(lo, _mm256_setzero_si256())) | _mm256_movemask_ps(_mm256_cmp_ps(f, f, _CMP_UNORD_Q));
}
__attribute__((noinline)) void token_rolled1() {
  for (int l = 0; l < 28; ++l) for (int kv = 0; kv < 2; ++kv) bad |= rolled1(src + kv * 1024, row(l, kv, 0), S / 2);
}
__attribute__((noinline)) int rowunroll(const float* src, uint16_t* dst, long dst_stride) {
  const long rows = vrows; constexpr long whole = 128;
  const __m256i half = _mm256_set1_epi32(0x8000);
  __m256i m0 = _mm256_set1_epi16(-1), m1 = m0; __m256 f0 = _mm256_setzero_ps(), f1 = f0;
  for (long r = 0; r < rows; ++r) {
    const float* s = src + r * 128; uint16_t* o = dst + r * dst_stride;
#pragma GCC unroll 8
    for (long j = 0; j < whole; j += 16) {
      __m256i a = _mm256_loadu_si256((const __m256i*)(s + j)), b = _mm256_loadu_si256((const __m256i*)(s + j + 8));
      f0 = _mm256_add_ps(f0, _mm256_castsi256_ps(a)); f1 = _mm256_add_ps(f1, _mm256_castsi256_ps(b));
      a = _mm256_add_epi32(a, half); b = _mm256_add_epi32(b, half);
      m0 = _mm256_min_epu16(m0, a); m1 = _mm256_min_epu16(m1, b);
      _mm256_storeu_si256((__m256i*)(o + j), _mm256_permute4x64_epi64(_mm256_packus_epi32(_mm256_srli_epi32(a, 16), _mm256_srli_epi32(b, 16)), 0xd8));
    }
  }
  __m256i lo = _mm256_and_si256(_mm256_min_epu16(m0, m1), _mm256_set1_epi32(0xffff));
  __m256 f = _mm256_add_ps(f0, f1);
  return _mm256_movemask_epi8(_mm256_cmpeq_epi32(lo, _mm256_setzero_si256())) | _mm256_movemask_ps(_mm256_cmp_ps(f, f, _CMP_UNORD_Q));
}
__attribute__((noinline)) void token_rowunroll() {
  for (int l = 0; l < 28; ++l) for (int kv = 0; kv < 2; ++kv) bad |= rowunroll(src + kv * 1024, row(l, kv, 0), S / 2);
}
__attribute__((noinline)) void token_rolled() {
  for (int l = 0; l < 28; ++l) for (int kv = 0; kv < 2; ++kv) bad |= rolled(src + kv * 1024, row(l, kv, 0), S / 2);
}
__attribute__((noinline)) int block8(const float* src, uint16_t* dst, long dst_stride) {
  const long rows = vrows, whole = vwhole;
  const __m256i half = _mm256_set1_epi32(0x8000);
  __m256i m0 = _mm256_set1_epi16(-1), m1 = m0; __m256 f0 = _mm256_setzero_ps(), f1 = f0;
  for (long r = 0; r < rows; ++r) {
    const float* s = src + r * 128; uint16_t* o = dst + r * dst_stride;
#pragma GCC unroll 1
    for (long j = 0; j < whole; j += 64) {
      __m256i x[8];
#pragma GCC unroll 8
      for (int i = 0; i < 8; ++i) x[i] = _mm256_loadu_si256((const __m256i*)(s + j + 8 * i));
#pragma GCC unroll 4
      for (int i = 0; i < 8; i += 2) {
        __m256i a = x[i], b = x[i + 1];
        f0 = _mm256_add_ps(f0, _mm256_castsi256_ps(a)); f1 = _mm256_add_ps(f1, _mm256_castsi256_ps(b));
        a = _mm256_add_epi32(a, half); b = _mm256_add_epi32(b, half);
        m0 = _mm256_min_epu16(m0, a); m1 = _mm256_min_epu16(m1, b);
        _mm256_storeu_si256((__m256i*)(o + j + 8 * i), _mm256_permute4x64_epi64(_mm256_packus_epi32(_mm256_srli_epi32(a, 16), _mm256_srli_epi32(b, 16)), 0xd8));
      }
    }
  }
  __m256i lo = _mm256_and_si256(_mm256_min_epu16(m0, m1), _mm256_set1_epi32(0xffff));
  __m256 f = _mm256_add_ps(f0, f1);
  return _mm256_movemask_epi8(_mm256_cmpeq_epi32(lo, _mm256_setzero_si256())) | _mm256_movemask_ps(_mm256_cmp_ps(f, f, _CMP_UNORD_Q));
}
__attribute__((noinline)) void token_block8() {
  for (int l = 0; l < 28; ++l) for (int kv = 0; kv < 2; ++kv) bad |= block8(src + kv * 1024, row(l, kv, 0), S / 2);
}
template <int kForm>
__attribute__((noinline)) int rowu(const float* src, uint16_t* dst, long dst_stride) {
  const long rows = vrows; constexpr long whole = 128;
  const __m256i half = _mm256_set1_epi32(0x8000);
  __m256i m0 = _mm256_set1_epi16(-1), m1 = m0; __m256 u = _mm256_setzero_ps();
  for (long r = 0; r < rows; ++r) {
    const float* s = src + r * 128; uint16_t* o = dst + r * dst_stride;
#pragma GCC unroll 8
    for (long j = 0; j < whole; j += 16) {
      __m256i a = _mm256_loadu_si256((const __m256i*)(s + j)), b = _mm256_loadu_si256((const __m256i*)(s + j + 8));
      if (kForm == 0) u = _mm256_or_ps(u, _mm256_cmp_ps(_mm256_castsi256_ps(a), _mm256_castsi256_ps(b), _CMP_UNORD_Q));
      else { __m256 t = _mm256_add_ps(_mm256_castsi256_ps(a), _mm256_castsi256_ps(b)); u = _mm256_or_ps(u, _mm256_cmp_ps(t, t, _CMP_UNORD_Q)); }
      a = _mm256_add_epi32(a, half); b = _mm256_add_epi32(b, half);
      m0 = _mm256_min_epu16(m0, a); m1 = _mm256_min_epu16(m1, b);
      _mm256_storeu_si256((__m256i*)(o + j), _mm256_permute4x64_epi64(_mm256_packus_epi32(_mm256_srli_epi32(a, 16), _mm256_srli_epi32(b, 16)), 0xd8));
    }
  }
  __m256i lo = _mm256_and_si256(_mm256_min_epu16(m0, m1), _mm256_set1_epi32(0xffff));
  return _mm256_movemask_epi8(_mm256_cmpeq_epi32(lo, _mm256_setzero_si256())) | _mm256_movemask_ps(u);
}
template <int kForm> __attribute__((noinline)) void token_rowu() {
  for (int l = 0; l < 28; ++l) for (int kv = 0; kv < 2; ++kv) bad |= rowu<kForm>(src + kv * 1024, row(l, kv, 0), S / 2);
}
template <int kCheck> __attribute__((noinline)) void token() {
  for (int l = 0; l < 28; ++l) for (int kv = 0; kv < 2; ++kv) bad |= call<kCheck>(src + kv * 1024, row(l, kv, 0), S / 2);
}
__attribute__((noinline)) void library() {
  for (int l = 0; l < 28; ++l) for (int kv = 0; kv < 2; ++kv)
    kvb::encode_rows(src + kv * 1024, 128, row(l, kv, 0), S / 2, 8, 128, kvb::DType::kBF16, nullptr, false);
}
int main() {
  std::vector<long> ctxs = {4092, 4093, 4094, 4095, 4096, 4097};
  size_t bytes = 28ul * 16 * 4098 * 256 + (4 << 20);
  void* p; posix_memalign(&p, 2 << 20, bytes); madvise(p, bytes, MADV_HUGEPAGE); memset(p, 1, bytes);
  base = (unsigned char*)p;
  for (int i = 0; i < 2048; ++i) src[i] = std::sin(i * 0.37f) * 3.0f;
  struct V { const char* n; void (*f)(); } vs[] = {{"nocheck", token<0>}, {"fsum2", token<1>}, {"imax2", token<2>}, {"fsum4", token<3>}, {"unord", token<4>}, {"library", library}, {"fsum2mem", token<5>}, {"rolled", token_rolled}, {"rolled1", token_rolled1}, {"rowunroll", token_rowunroll}, {"block8", token_block8}, {"rowu-unord", token_rowu<0>}, {"rowu-addnan", token_rowu<1>}};
  const int nv = 13;
  std::vector<std::vector<std::vector<double>>> t(ctxs.size(), std::vector<std::vector<double>>(nv));
  for (int round = 0; round < 11; ++round)
    for (size_t c = 0; c < ctxs.size(); ++c) {
      S = ctxs[c] * 256; pos = ctxs[c] - 1;
      for (int v = 0; v < nv; ++v) {
        for (int w = 0; w < 20; ++w) vs[v].f();
        auto t0 = Clock::now(); for (int it = 0; it < 100; ++it) vs[v].f(); auto t1 = Clock::now();
        t[c][v].push_back(std::chrono::duration<double, std::nano>(t1 - t0).count() / 100);
      }
    }
  printf("bad=%d\n%-6s", bad, "ctx"); for (int v = 0; v < nv; ++v) printf(" %9s", vs[v].n); printf("\n");
  for (size_t c = 0; c < ctxs.size(); ++c) {
    printf("%-6ld", ctxs[c]);
    for (int v = 0; v < nv; ++v) { auto& x = t[c][v]; std::sort(x.begin(), x.end()); printf(" %9.0f", x[5]); }
    printf("\n");
  }
}
