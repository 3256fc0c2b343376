// The fp32 decode kernel's access shape and arithmetic as a bare AVX2 loop (G = 2, head_dim 128,
// Qwen3-0.6B: 28 layers x 8 KV heads of N positions, K then V rows of 512 bytes per head), no
// softmax: per tile of T positions, the K rows scored four at a time against two query heads
// (chunk-major, one lane sum per row and head), then the tile's V rows accumulated into the two
// heads' outputs, VC chunks of 8 floats per pass over the tile (VC = 16: one sweep with the
// accumulators in L1). Best of 4 passes.
//   fp32_loop T VC [TOUCH [PF [TLB]]]
// TOUCH = t: before each tile, one 4-byte load per 64-byte line of tile + t's K and V rows (a
// demand-load window). PF = bytes: PREFETCHT0 of every line of the block's K and V rows PF bytes
// ahead, from the score phase (kvbench's joint scheme). TLB = bytes: one load per 4 KB of each
// stream TLB bytes ahead. Env N, H (heads streamed), HM (distinct heads in memory: 1 keeps them
// in L1/L2). Build: g++ -O2 -mavx2 -mfma fp32_loop.cc
#include <immintrin.h>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <sys/mman.h>
static inline float hsum(__m256 v) { __m128 a = _mm_add_ps(_mm256_castps256_ps128(v), _mm256_extractf128_ps(v, 1)); a = _mm_hadd_ps(a, a); a = _mm_hadd_ps(a, a); return _mm_cvtss_f32(a); }
alignas(64) float q[2][128], out[2][128], s[2][256];
template <int VC>
__attribute__((noinline)) void vpass(const char* V, long p0, long pe, long row) {
  if constexpr (VC == 16) {
    for (long pp = p0; pp < pe; ++pp) {
      const float* v = (const float*)(V + pp * row);
      __m256 w0 = _mm256_broadcast_ss(&s[0][pp - p0]), w1 = _mm256_broadcast_ss(&s[1][pp - p0]);
#pragma GCC unroll 16
      for (int c = 0; c < 128; c += 8) {
        __m256 x = _mm256_load_ps(v + c);
        _mm256_store_ps(out[0] + c, _mm256_fmadd_ps(w0, x, _mm256_load_ps(out[0] + c)));
        _mm256_store_ps(out[1] + c, _mm256_fmadd_ps(w1, x, _mm256_load_ps(out[1] + c)));
      }
    }
  } else {
    for (int c0 = 0; c0 < 128; c0 += 8 * VC) {
      __m256 o[2][VC];
#pragma GCC unroll 16
      for (int c = 0; c < VC; ++c) o[0][c] = _mm256_load_ps(out[0] + c0 + 8 * c), o[1][c] = _mm256_load_ps(out[1] + c0 + 8 * c);
      for (long pp = p0; pp < pe; ++pp) {
        const float* v = (const float*)(V + pp * row) + c0;
        __m256 w0 = _mm256_broadcast_ss(&s[0][pp - p0]), w1 = _mm256_broadcast_ss(&s[1][pp - p0]);
#pragma GCC unroll 16
        for (int c = 0; c < VC; ++c) { __m256 x = _mm256_load_ps(v + 8 * c); o[0][c] = _mm256_fmadd_ps(w0, x, o[0][c]); o[1][c] = _mm256_fmadd_ps(w1, x, o[1][c]); }
      }
#pragma GCC unroll 16
      for (int c = 0; c < VC; ++c) _mm256_store_ps(out[0] + c0 + 8 * c, o[0][c]), _mm256_store_ps(out[1] + c0 + 8 * c, o[1][c]);
    }
  }
}
int main(int argc, char** argv) {
  const long N = getenv("N") ? atol(getenv("N")) : 4682, H = getenv("H") ? atol(getenv("H")) : 224, row = 512;
  const long HM = getenv("HM") ? atol(getenv("HM")) : H;
  const int T = atoi(argv[1]), VC = atoi(argv[2]);
  const long touch = argc > 3 ? atol(argv[3]) : 0, pfd = argc > 4 ? atol(argv[4]) : 0, tlbd = argc > 5 ? atol(argv[5]) : 0;
  __m256 sink = _mm256_setzero_ps();
  size_t bytes = size_t(HM) * 2 * N * row;
  char* buf = (char*)aligned_alloc(1 << 21, bytes);
  madvise(buf, bytes, MADV_HUGEPAGE);
  for (size_t i = 0; i < bytes / 4; ++i) ((float*)buf)[i] = 0.001f * (i & 7);
  for (int i = 0; i < 256; ++i) q[i / 128][i % 128] = 0.01f * (i % 5);
  double best = 1e30;
  for (int rep = 0; rep < 4; ++rep) {
    auto t0 = std::chrono::steady_clock::now();
    for (long h = 0; h < H; ++h) {
      const char* K = buf + (h % HM) * 2 * N * row;
      const char* V = K + N * row;
      memset(out, 0, sizeof out);
      for (long p0 = 0; p0 < N; p0 += T) {
        long pe = p0 + T < N ? p0 + T : N;
        if (touch) {
          long t0r = p0 + touch * T, t1r = t0r + T < N ? t0r + T : N;
          __m256 z = _mm256_setzero_ps();
          for (long r = t0r; r < t1r; ++r)
            for (int l = 0; l < 8; ++l) z = _mm256_or_ps(z, _mm256_or_ps(_mm256_castps128_ps256(_mm_load_ss((const float*)(K + r * row + 64 * l))), _mm256_castps128_ps256(_mm_load_ss((const float*)(V + r * row + 64 * l)))));
          sink = _mm256_or_ps(sink, z);
        }
        long p = p0;
        for (; p + 4 <= pe; p += 4) {
          if (pfd) for (int r = 0; r < 4; ++r) for (int l = 0; l < 8; ++l) { _mm_prefetch(K + (p + r) * row + pfd + 64 * l, _MM_HINT_T0); _mm_prefetch(V + (p + r) * row + pfd + 64 * l, _MM_HINT_T0); }
          if (tlbd && ((p * row) & 4095) == 0) sink = _mm256_or_ps(sink, _mm256_or_ps(_mm256_castps128_ps256(_mm_load_ss((const float*)(K + p * row + tlbd))), _mm256_castps128_ps256(_mm_load_ss((const float*)(V + p * row + tlbd)))));
          __m256 a[2][4];
          for (int g = 0; g < 2; ++g) for (int r = 0; r < 4; ++r) a[g][r] = _mm256_setzero_ps();
#pragma GCC unroll 16
          for (int c = 0; c < 128; c += 8) {
            __m256 q0 = _mm256_load_ps(q[0] + c), q1 = _mm256_load_ps(q[1] + c);
#pragma GCC unroll 4
            for (int r = 0; r < 4; ++r) {
              __m256 k = _mm256_load_ps((const float*)(K + (p + r) * row) + c);
              a[0][r] = _mm256_fmadd_ps(q0, k, a[0][r]);
              a[1][r] = _mm256_fmadd_ps(q1, k, a[1][r]);
            }
          }
          for (int g = 0; g < 2; ++g) for (int r = 0; r < 4; ++r) s[g][p - p0 + r] = hsum(a[g][r]) * 0.01f;
        }
        switch (VC) { case 1: vpass<1>(V, p0, pe, row); break; case 2: vpass<2>(V, p0, pe, row); break; case 4: vpass<4>(V, p0, pe, row); break; default: vpass<16>(V, p0, pe, row); }
      }
    }
    double sec = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    float so[8]; _mm256_storeu_ps(so, sink); if (out[0][3] == 12345 || so[1] == 5) puts("x");
    if (sec < best) best = sec;
  }
  printf("T=%d VC=%d: %.1f GB/s  %.1f ns/pos\n", T, VC, double(H) * 2 * N * row / best / 1e9, best / (H * N) * 1e9);
}
