// Diagnostic (Zen 4): DRAM read rate of the fp32 kernel's long-tile access shape, K rows in
// order or in chunk-interleaved pairs, with or without a PREFETCHT2 window 4 KB ahead, with two
// FMAs per loaded vector (G = 2); the T2 window also on every other or every fourth line; the V
// sweep alone (half the bytes) with and without the window. Environment: NOHP=1 leaves out the
// huge-page advice (4 KB pages), KVB_LAYOUT=1 CTX=16384 ITEMS=80 lays the rows out as kvbench's
// cache ([layer][K|V][8 heads][position][dim], 10 layers) instead of K and V per item.
#include <immintrin.h>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <sys/mman.h>
static double now() { return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count(); }
constexpr size_t kRow = 512, kTileRows = 256, kTile = kRow * kTileRows;  // fp32 d=128, 256 rows
static __m512 q0[8], q1[8];
static __m512 sink;
template <bool kPairs, int kPf, int kStep = 64>
static void k_tile(const char* k, __m512* acc) {
  for (size_t r = 0; r < kTileRows; r += 4) {
    if (kPf) for (size_t b = 0; b < 4 * kRow; b += kStep) _mm_prefetch(k + (r + 8) * kRow + b, _MM_HINT_T2);
    __m512 a[8];
    for (int i = 0; i < 8; ++i) a[i] = _mm512_setzero_ps();
    if (kPairs) {
#pragma GCC unroll 16
      for (int r0 = 0; r0 < 4; r0 += 2)
#pragma GCC unroll 16
        for (int c = 0; c < 8; ++c)
#pragma GCC unroll 16
          for (int rr = r0; rr < r0 + 2; ++rr) {
            __m512 x = _mm512_load_ps((const float*)(k + (r + rr) * kRow + c * 64));
            a[rr * 2] = _mm512_fmadd_ps(x, q0[c], a[rr * 2]);
            a[rr * 2 + 1] = _mm512_fmadd_ps(x, q1[c], a[rr * 2 + 1]);
          }
    } else {
#pragma GCC unroll 16
      for (int rr = 0; rr < 4; ++rr)
#pragma GCC unroll 16
        for (int c = 0; c < 8; ++c) {
          __m512 x = _mm512_load_ps((const float*)(k + (r + rr) * kRow + c * 64));
          a[rr * 2] = _mm512_fmadd_ps(x, q0[c], a[rr * 2]);
          a[rr * 2 + 1] = _mm512_fmadd_ps(x, q1[c], a[rr * 2 + 1]);
        }
    }
    for (int i = 0; i < 8; ++i) acc[i] = _mm512_add_ps(acc[i], a[i]);
  }
}
template <int kPf, int kStep = 64>
static void v_tile(const char* v, __m512* acc) {
  const __m512 p0 = _mm512_set1_ps(0.5f), p1 = _mm512_set1_ps(0.25f);
  __m512 a[16];
  for (int i = 0; i < 16; ++i) a[i] = _mm512_setzero_ps();
  for (size_t r = 0; r < kTileRows; ++r) {
    if (kPf) for (size_t b = 0; b < kRow; b += kStep) _mm_prefetch(v + (r + 8) * kRow + b, _MM_HINT_T2);
#pragma GCC unroll 16
    for (int c = 0; c < 8; ++c) {
      __m512 x = _mm512_load_ps((const float*)(v + r * kRow + c * 64));
      a[c] = _mm512_fmadd_ps(x, p0, a[c]);
      a[8 + c] = _mm512_fmadd_ps(x, p1, a[8 + c]);
    }
  }
  for (int i = 0; i < 16; ++i) acc[i & 7] = _mm512_add_ps(acc[i & 7], a[i]);
}
int main(int argc, char** argv) {
  const size_t ctx = getenv("CTX") ? atol(getenv("CTX")) : 4608, item = ctx * kRow;
  const size_t items = getenv("ITEMS") ? atol(getenv("ITEMS")) : 224;  // 28 layers x 8 heads, ~1 GiB
  const bool kvb_layout = getenv("KVB_LAYOUT") != nullptr;
  const size_t total = 2 * item * items;
  char* buf = (char*)aligned_alloc(1 << 21, total);
  if (!getenv("NOHP")) madvise(buf, total, MADV_HUGEPAGE);
  memset(buf, 1, total);
  for (int i = 0; i < 8; ++i) { q0[i] = _mm512_set1_ps(0.1f * i); q1[i] = _mm512_set1_ps(0.2f); }
  const char* names[] = {"K pairs, no pf", "K pairs, T2 pf", "K in order, no pf", "K in order, T2 pf",
                         "T2 pf 128 B step", "T2 pf 256 B step", "V only T2 (half bytes)", "V only none (half bytes)"};
  for (int round = 0; round < 3; ++round)
    for (int pat = 0; pat < 8; ++pat) {
      double best = 1e9;
      for (int rep = 0; rep < 3; ++rep) {
        __m512 acc[8];
        for (int i = 0; i < 8; ++i) acc[i] = _mm512_setzero_ps();
        double t0 = now();
        for (size_t it = 0; it < items; ++it) {
          const char* K = buf + 2 * item * it;
          const char* V = K + item;
          if (kvb_layout) {  // [layer][K|V][8 heads][ctx][d]
            const size_t layer = it / 8, head = it % 8;
            K = buf + layer * 16 * item + head * item;
            V = K + 8 * item;
          }
          for (size_t t = 0; t + kTileRows <= ctx; t += kTileRows) {
            switch (pat) {
              case 0: k_tile<true, 0>(K + t * kRow, acc); v_tile<0>(V + t * kRow, acc); break;
              case 1: k_tile<true, 1>(K + t * kRow, acc); v_tile<1>(V + t * kRow, acc); break;
              case 2: k_tile<false, 0>(K + t * kRow, acc); v_tile<0>(V + t * kRow, acc); break;
              case 3: k_tile<false, 1>(K + t * kRow, acc); v_tile<1>(V + t * kRow, acc); break;
              case 4: k_tile<true, 1, 128>(K + t * kRow, acc); v_tile<1, 128>(V + t * kRow, acc); break;
              case 5: k_tile<true, 1, 256>(K + t * kRow, acc); v_tile<1, 256>(V + t * kRow, acc); break;
              case 6: v_tile<1>(V + t * kRow, acc); break;
              case 7: v_tile<0>(V + t * kRow, acc); break;
            }
          }
        }
        double el = now() - t0;
        for (int i = 0; i < 8; ++i) sink = _mm512_add_ps(sink, acc[i]);
        if (el < best) best = el;
      }
      printf("r%d %-20s %.1f GB/s\n", round, names[pat], (pat >= 6 ? total / 2 : total) / best / 1e9);
    }
  float s[16]; _mm512_storeu_ps(s, sink); return s[0] == 12345.f;
}
