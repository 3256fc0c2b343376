// SCRATCH (not for landing): VCVTNE2PS2BF16 variants, forced on regardless of CPUID, by KVB_BF16N.
#include <immintrin.h>
#include <cstdint>
#include <cstdlib>
#include "kernels/codecs.h"
#include <atomic>
#include <cstdio>
std::atomic<long> g_slow{0}, g_fast{0};
struct Rep { ~Rep() { if (std::getenv("KVB_BF16N")) std::fprintf(stderr, "bf16n slow %ld fast %ld\n", g_slow.load(), g_fast.load()); } } g_rep;
namespace kvb::detail {
namespace {
int mode() { static const int m = [] { const char* e = std::getenv("KVB_BF16N"); return e ? std::atoi(e) : 0; }(); return m; }
#define T __attribute__((target("avx512f,avx512dq,avx512bw,avx512bf16")))
T inline __m512i cvt(__m512 hi, __m512 lo) { return (__m512i)_mm512_cvtne2ps_pbh(hi, lo); }
T __attribute__((noinline)) void rows1(const float* src, std::int64_t ss, std::uint16_t* dst, std::int64_t ds, std::int64_t rows, std::int32_t done) {
  for (std::int64_t r = 0; r < rows; ++r) {
    const float* s = src + r * ss; std::uint16_t* o = dst + r * ds;
    std::int32_t j = 0;
    for (; j + 128 <= done; j += 128) {
      __m512 x[8]; __mmask16 m = 0;
      for (int i = 0; i < 8; ++i) { x[i] = _mm512_loadu_ps(s + j + 16 * i); m |= _mm512_fpclass_ps_mask(x[i], 0x20); }
      if (m) { for (int e = 0; e < 128; ++e) o[j + e] = f32_to_bf16(s[j + e]); continue; }
      for (int i = 0; i < 4; ++i) _mm512_storeu_si512(o + j + 32 * i, cvt(x[2 * i + 1], x[2 * i]));
    }
    for (; j < done; j += 32) for (int e = 0; e < 32; ++e) o[j + e] = f32_to_bf16(s[j + e]);
  }
}
T __attribute__((noinline)) void rows2(const float* src, std::int64_t ss, std::uint16_t* dst, std::int64_t ds, std::int64_t rows, std::int32_t done) {
  for (std::int64_t r = 0; r < rows; ++r) {
    const float* s = src + r * ss; std::uint16_t* o = dst + r * ds;
    for (std::int32_t j = 0; j < done; j += 32) _mm512_storeu_si512(o + j, cvt(_mm512_loadu_ps(s + j + 16), _mm512_loadu_ps(s + j)));
  }
}
// Zero codes come only from zero or subnormal inputs: test the codes, not the inputs.
T __attribute__((noinline)) void rows3(const float* src, std::int64_t ss, std::uint16_t* dst, std::int64_t ds, std::int64_t rows, std::int32_t done) {
  const __m512i magnitude = _mm512_set1_epi16(0x7fff);
  for (std::int64_t r = 0; r < rows; ++r) {
    const float* s = src + r * ss; std::uint16_t* o = dst + r * ds;
    for (std::int32_t j = 0; j < done; j += 32) {
      const __m512i c = cvt(_mm512_loadu_ps(s + j + 16), _mm512_loadu_ps(s + j));
      _mm512_storeu_si512(o + j, c);
      if (_mm512_testn_epi16_mask(c, magnitude) != 0) { g_slow.fetch_add(1, std::memory_order_relaxed);
        for (int e = 0; e < 32; ++e) o[j + e] = f32_to_bf16(s[j + e]); }
    }
  }
}
// Zero codes, found by one min over the call: (c << 1) is 0 only for +-0 codes. A call with one
// redoes its rows whose inputs hold a subnormal.
T __attribute__((noinline)) void rows4(const float* src, std::int64_t ss, std::uint16_t* dst, std::int64_t ds, std::int64_t rows, std::int32_t done) {
  __m512i low = _mm512_set1_epi16(-1);
  for (std::int64_t r = 0; r < rows; ++r) {
    const float* s = src + r * ss; std::uint16_t* o = dst + r * ds;
    for (std::int32_t j = 0; j < done; j += 32) {
      const __m512i c = cvt(_mm512_loadu_ps(s + j + 16), _mm512_loadu_ps(s + j));
      _mm512_storeu_si512(o + j, c);
      low = _mm512_min_epu16(low, _mm512_slli_epi16(c, 1));
    }
  }
  if (_mm512_testn_epi16_mask(low, low) == 0) return;
  g_slow.fetch_add(1, std::memory_order_relaxed);
  for (std::int64_t r = 0; r < rows; ++r)
    for (std::int32_t j = 0; j < done; ++j) dst[r * ds + j] = f32_to_bf16(src[r * ss + j]);
}
}  // namespace
std::int32_t encode_bf16_rows_avx512(const float* src, std::int64_t ss, std::uint16_t* dst, std::int64_t ds, std::int64_t rows, std::int32_t d, bool, std::int64_t) noexcept {
  const int m = mode();
  const std::int32_t done = d - d % 32;
  if (m == 0 || done == 0) return 0;
  if (m == 1) rows1(src, ss, dst, ds, rows, done);
  else if (m == 2) rows2(src, ss, dst, ds, rows, done);
  else if (m == 3) rows3(src, ss, dst, ds, rows, done);
  else rows4(src, ss, dst, ds, rows, done);
  return done;
}
}  // namespace kvb::detail
