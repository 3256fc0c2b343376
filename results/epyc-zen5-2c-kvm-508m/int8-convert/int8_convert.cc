// Scratch microbenchmark (results/epyc-zen5-2c-kvm-508m/int8-convert/README.md): what the int8
// rows' conversion to fp32 costs beside the FMAs of G = 2, in the shape of the attention kernel's
// V phase, from L1 (128 rows of 128 int8 elements, 16 KB), one thread.
// Per 16 elements: mode 0 VPMOVSXBD + VCVTDQ2PS (the kernel's LoadChunk), mode 1 VPMOVSXBD + VPADDD
// of 0x4B400000 + VSUBPS 12582912.0f (the exact magic-number conversion, which moves the work off
// the convert onto an integer add and an FP add), mode 2 VPMOVSXBD alone (values wrong: op count
// only), mode 3 a 64-byte fp32 load alone (the fp32 kernel's shape); then two FMAs (two heads).
// Build: g++ -O2 -march=x86-64-v4 int8_convert.cc -o int8_convert
#include <immintrin.h>
#include <chrono>
#include <cstdio>
#include <cstdint>
#include <cstdlib>
#include <cstring>
// V-side like loop: acc[h][c] += w[h] * convert(row[c]) for 8 chunks of 16, 2 heads.
template <int kMode>
__attribute__((noinline)) void run(const int8_t* rows, int nrows, const float* w, float* out) {
  __m512 acc[2][8];
  for (int h = 0; h < 2; ++h) for (int c = 0; c < 8; ++c) acc[h][c] = _mm512_setzero_ps();
  const __m512i magic = _mm512_set1_epi32(0x4B400000);
  const __m512 magicf = _mm512_set1_ps(12582912.0f);
  for (int t = 0; t < nrows; ++t) {
    const int8_t* r = rows + t * 128;
    __m512 w0 = _mm512_set1_ps(w[2 * t]), w1 = _mm512_set1_ps(w[2 * t + 1]);
    _Pragma("GCC unroll 8") for (int c = 0; c < 8; ++c) {
      __m512 f;
      __m512i i;
      if constexpr (kMode == 3) i = _mm512_castps_si512(_mm512_loadu_ps((const float*)(r) + 16 * (c & 1)));
      else i = _mm512_cvtepi8_epi32(_mm_loadu_si128((const __m128i*)(r + 16 * c)));
      if constexpr (kMode == 0) f = _mm512_cvtepi32_ps(i);
      else if constexpr (kMode == 1) f = _mm512_sub_ps(_mm512_castsi512_ps(_mm512_add_epi32(i, magic)), magicf);
      else f = _mm512_castsi512_ps(i);  // no conversion (wrong values: op count only)
      acc[0][c] = _mm512_fmadd_ps(w0, f, acc[0][c]);
      acc[1][c] = _mm512_fmadd_ps(w1, f, acc[1][c]);
    }
  }
  for (int h = 0; h < 2; ++h) for (int c = 0; c < 8; ++c) _mm512_storeu_ps(out + (h * 8 + c) * 16, acc[h][c]);
}
int main() {
  const int n = 128;  // 16 KB: L1
  int8_t* rows = (int8_t*)aligned_alloc(64, n * 128);
  for (int i = 0; i < n * 128; ++i) rows[i] = (int8_t)(i * 37 % 255 - 127);
  float w[2 * n]; for (int i = 0; i < 2 * n; ++i) w[i] = 1e-3f * (i % 7);
  float out[256];
  for (int mode = 0; mode < 4; ++mode) {
    double best = 1e9;
    for (int rep = 0; rep < 7; ++rep) {
      auto t0 = std::chrono::steady_clock::now();
      for (int k = 0; k < 20000; ++k) {
        if (mode == 0) run<0>(rows, n, w, out); else if (mode == 1) run<1>(rows, n, w, out); else if (mode == 2) run<2>(rows, n, w, out); else run<3>(rows, n, w, out);
      }
      double ns = std::chrono::duration<double, std::nano>(std::chrono::steady_clock::now() - t0).count() / (20000.0 * n);
      if (ns < best) best = ns;
    }
    printf("mode %d: %.3f ns per row (out %f)\n", mode, best, out[3]);
  }
  // check exactness of mode 1
  for (int x = -128; x < 128; ++x) {
    __m512i i = _mm512_set1_epi32(x);
    float f = _mm512_cvtss_f32(_mm512_sub_ps(_mm512_castsi512_ps(_mm512_add_epi32(i, _mm512_set1_epi32(0x4B400000))), _mm512_set1_ps(12582912.0f)));
    if (f != (float)x) { printf("mismatch %d %f\n", x, f); return 1; }
  }
  puts("magic exact");
}
