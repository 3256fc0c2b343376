// Does arithmetic between the loads cost DRAM bandwidth? Two streams of 512-byte rows read as
// the decode kernel reads them (a tile of 16 K rows, then its 16 V rows; 28 x 8 heads of 4682
// positions: 1 GiB), each row's 16 loads ORed together, and after each row X x 8 FMAs on
// registers that do not depend on the loads. mode 1: the rows come from an L1 buffer and the DRAM
// lines are only prefetched, PF bytes ahead with HINT (0 T0, 2 T2, 3 NTA): a "GB/s" above the
// DRAM read ceiling means prefetches were dropped. Best of 4 passes.
//   loads_and_fmas X [MODE [PF [HINT]]]      Build: g++ -O2 -mavx2 -mfma loads_and_fmas.cc
#include <immintrin.h>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <sys/mman.h>
int main(int argc, char** argv) {
  const long N = 4682, H = 224, row = 512;
  const int X = atoi(argv[1]);
  const int mode = argc > 2 ? atoi(argv[2]) : 0;
  const long pf = argc > 3 ? atol(argv[3]) : 4096; const int hint = argc > 4 ? atoi(argv[4]) : 0;
  size_t bytes = size_t(H) * 2 * N * row;
  char* buf = (char*)aligned_alloc(1 << 21, bytes);
  madvise(buf, bytes, MADV_HUGEPAGE);
  memset(buf, 1, bytes);
  alignas(64) char l1[8192]; memset(l1, 1, sizeof l1);
  double best = 1e30;
  __m256 f[8]; for (int i = 0; i < 8; ++i) f[i] = _mm256_set1_ps(1.0f + i * 1e-7f);
  const __m256 m = _mm256_set1_ps(0.9999999f), a = _mm256_set1_ps(1e-8f);
  __m256 acc = _mm256_setzero_ps();
  for (int rep = 0; rep < 4; ++rep) {
    auto t0 = std::chrono::steady_clock::now();
    for (long h = 0; h < H; ++h) {
      const char* K = buf + h * 2 * N * row;
      for (long p0 = 0; p0 < N; p0 += 16) {
        long pe = p0 + 16 < N ? p0 + 16 : N;
        for (int ph = 0; ph < 2; ++ph) {
          const char* S = K + ph * N * row;
          for (long p = p0; p < pe; ++p) {
            const char* r = mode == 1 ? l1 + ((p & 15) * row) : S + p * row;
            if (mode == 1) for (int l = 0; l < 8; ++l) (hint == 3 ? _mm_prefetch(S + p * row + pf + 64 * l, _MM_HINT_NTA) : hint == 2 ? _mm_prefetch(S + p * row + pf + 64 * l, _MM_HINT_T2) : _mm_prefetch(S + p * row + pf + 64 * l, _MM_HINT_T0));
            __m256 x = _mm256_load_ps((const float*)r), y = _mm256_load_ps((const float*)r + 8);
            for (int c = 16; c < 128; c += 16) { x = _mm256_or_ps(x, _mm256_load_ps((const float*)r + c)); y = _mm256_or_ps(y, _mm256_load_ps((const float*)r + c + 8)); }
            acc = _mm256_or_ps(acc, _mm256_or_ps(x, y));
            for (int i = 0; i < X; ++i) for (int j = 0; j < 8; ++j) f[j] = _mm256_fmadd_ps(f[j], m, a);
          }
        }
      }
    }
    double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    if (s < best) best = s;
  }
  float o[8]; _mm256_storeu_ps(o, acc); __m256 ff = f[0]; for (int j = 1; j < 8; ++j) ff = _mm256_add_ps(ff, f[j]); float o2[8]; _mm256_storeu_ps(o2, ff);
  if (o[0] == 12345 || o2[0] == 12345) puts("x");
  printf("X=%d (x8 FMA per row) mode=%d pf=%ld: %.1f GB/s %.1f ns/pos\n", X, mode, pf, bytes / best / 1e9, best / (H * N) * 1e9);
}
