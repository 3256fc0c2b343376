// Diagnostic: DRAM read bandwidth of access patterns shaped like the attention kernel's.
#include <immintrin.h>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <sys/mman.h>
#include <vector>
static double now() { return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count(); }
static __m512 acc0, acc1;
static int WORK = 0;
static __m512 c[8];
static inline void read_block(const char* p, size_t bytes, const char* pf, size_t pfbytes) {
  __m512 a = acc0, b = acc1;
  __m512 c0=c[0],c1=c[1],c2=c[2],c3=c[3],c4=c[4],c5=c[5],c6=c[6],c7=c[7];
  const __m512 m = _mm512_set1_ps(0.999f);
  for (size_t i = 0; i < bytes; i += 128) {
    if (pf) { _mm_prefetch(pf + i, _MM_HINT_T0); _mm_prefetch(pf + i + 64, _MM_HINT_T0); }
    __m512 x = _mm512_load_ps((const float*)(p + i)), y = _mm512_load_ps((const float*)(p + i + 64));
    a = _mm512_add_ps(a, x);
    b = _mm512_add_ps(b, y);
    for (int w = 0; w < WORK; ++w) {
      c0=_mm512_fmadd_ps(x,m,c0);c1=_mm512_fmadd_ps(y,m,c1);c2=_mm512_fmadd_ps(x,m,c2);c3=_mm512_fmadd_ps(y,m,c3);
      c4=_mm512_fmadd_ps(x,m,c4);c5=_mm512_fmadd_ps(y,m,c5);c6=_mm512_fmadd_ps(x,m,c6);c7=_mm512_fmadd_ps(y,m,c7);
    }
  }
  acc0 = a; acc1 = b; c[0]=c0;c[1]=c1;c[2]=c2;c[3]=c3;c[4]=c4;c[5]=c5;c[6]=c6;c[7]=c7;
}
int main(int argc, char** argv) {
  WORK = argc > 1 ? atoi(argv[1]) : 0; const bool l2 = argc > 2;
  const size_t item = 586 * 512;  // one (layer, head) K block, fp32 ctx 586
  const int items = l2 ? 1 : 224;
  const size_t total = 2 * item * items;
  char* buf = (char*)aligned_alloc(1 << 21, total);
  madvise(buf, total, MADV_HUGEPAGE);
  memset(buf, 1, total);
  for (int round = 0; round < 3; ++round) {
    for (int pat = 0; pat < 8; ++pat) {
      double best = 1e9;
      for (int rep = 0; rep < (l2 ? 2000 : 5); ++rep) {
        double t0 = now();
        if (pat == 0) read_block(buf, total, nullptr, 0);
        else if (pat >= 6) {
          for (int it = 0; it < items; ++it) {
            const char* K = buf + 2 * item * it;
            const char* V = K + item;
            for (size_t o = 0; o + 8192 <= item; o += 8192) {
              for (size_t blk = 0; blk < 8192; blk += 2048)
                for (size_t line = 0; line < 512; line += 128)
                  for (int r = 0; r < 4; ++r) {
                    const char* pp = K + o + blk + r * 512 + line;
                    read_block(pp, 128, pat == 7 ? pp + 4096 : nullptr, 128);
                  }
              read_block(V + o, 8192, pat == 7 ? V + o + 4096 : nullptr, 8192);
            }
          }
        }
        else {
          size_t chunk = pat == 1 || pat == 3 ? 8192 : pat == 2 || pat == 4 ? 2048 : 512;
          bool pf = pat >= 3;
          for (int it = 0; it < items; ++it) {
            const char* K = buf + 2 * item * it;
            const char* V = K + item;
            for (size_t o = 0; o < item; o += chunk) {
              size_t n = o + chunk <= item ? chunk : item - o;
              size_t pfo = o + 4096;
              read_block(K + o, n, pf && pfo + n <= item ? K + pfo : nullptr, n);
              read_block(V + o, n, pf && pfo + n <= item ? V + pfo : nullptr, n);
            }
          }
        }
        double t = now() - t0;
        if (t < best) best = t;
      }
      const char* names[] = {"one stream", "K/V alternate 8KB", "K/V alternate 2KB", "8KB + pf4K", "2KB + pf4K", "512B + pf4K", "K 4-row colwise", "K colwise + pf"};
      printf("r%d %-20s %.1f GB/s\n", round, names[pat], total / best / 1e9);
    }
  }
  float s[16]; _mm512_storeu_ps(s, _mm512_add_ps(acc0, acc1)); return s[0] == 12345.f;
}
