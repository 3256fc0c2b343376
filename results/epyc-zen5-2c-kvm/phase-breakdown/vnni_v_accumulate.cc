// Record of a measurement, not part of the build (phase-breakdown/README.md): int8 V accumulation,
// 128 dims, 2 heads, 32-row tiles: the fp32 FMA path against VPDPBUSD with the probabilities as
// 24-bit fixed point in three u8 limbs (12 named int32 accumulators per pass over a half row).
// g++ -O3 -mavx512f -mavx512bw -mavx512vl -mavx512vnni -mfma; ./a.out ROWS REPS
#include <immintrin.h>
#include <x86intrin.h>
#include <cstdio>
#include <cstdlib>
#include <cstdint>
#include <cstring>
// V accumulation for int8 rows (128 dims), H = 2 heads, tiles of 32 rows: float path vs VNNI (3 u8 limbs of p)
static inline __m512 dec(const int8_t* p) { return _mm512_cvtepi32_ps(_mm512_cvtepi8_epi32(_mm_loadu_si128((const __m128i*)p))); }
int main(int argc, char** argv) {
  long nrows = atol(argv[1]); int reps = atoi(argv[2]);
  int8_t* v = (int8_t*)aligned_alloc(64, nrows * 128);
  for (long i = 0; i < nrows * 128; ++i) v[i] = (int8_t)(rand() & 255);
  float* p = (float*)aligned_alloc(64, nrows * 2 * 4);  // [row][h]
  for (long i = 0; i < nrows * 2; ++i) p[i] = rand() / (float)RAND_MAX;
  alignas(64) float accf[2][128] = {}, accv[2][128] = {};
  double bf = 1e30, bv = 1e30;
  for (int rep = 0; rep < reps; ++rep) {
    // float path: per tile of 32 rows, acc in registers 2 heads x 8 chunks
    unsigned long t0 = __rdtsc();
    for (long t = 0; t < nrows; t += 32) {
      __m512 a[2][8];
      for (int h = 0; h < 2; ++h) for (int c = 0; c < 8; ++c) a[h][c] = _mm512_load_ps(accf[h] + 16 * c);
      for (int r = 0; r < 32; ++r) {
        const int8_t* row = v + (t + r) * 128;
        __m512 p0 = _mm512_set1_ps(p[(t + r) * 2]), p1 = _mm512_set1_ps(p[(t + r) * 2 + 1]);
        for (int c = 0; c < 8; ++c) { __m512 x = dec(row + 16 * c); a[0][c] = _mm512_fmadd_ps(x, p0, a[0][c]); a[1][c] = _mm512_fmadd_ps(x, p1, a[1][c]); }
      }
      for (int h = 0; h < 2; ++h) for (int c = 0; c < 8; ++c) _mm512_store_ps(accf[h] + 16 * c, a[h][c]);
    }
    double tf = double(__rdtsc() - t0); if (tf < bf) bf = tf;
    // VNNI path
    t0 = __rdtsc();
    for (long t = 0; t < nrows; t += 32) {
      alignas(64) uint32_t limb[2][3][8];
      float mh[2];
      for (int h = 0; h < 2; ++h) {
        // p for 32 rows of head h (strided [row][h]): gather via scalar copy into a vector
        alignas(64) float ph[32];
        for (int r = 0; r < 32; ++r) ph[r] = p[(t + r) * 2 + h];
        __m512 x0 = _mm512_load_ps(ph), x1 = _mm512_load_ps(ph + 16);
        float m = _mm512_reduce_max_ps(_mm512_max_ps(x0, x1)); mh[h] = m;
        __m512 sc = _mm512_set1_ps(8388608.0f / m);
        __m512i P0 = _mm512_cvtps_epi32(_mm512_mul_ps(x0, sc)), P1 = _mm512_cvtps_epi32(_mm512_mul_ps(x1, sc));
        for (int l = 0; l < 3; ++l) {
          __m128i b0 = _mm512_cvtepi32_epi8(_mm512_srli_epi32(P0, 8 * l)), b1 = _mm512_cvtepi32_epi8(_mm512_srli_epi32(P1, 8 * l));
          _mm_store_si128((__m128i*)&limb[h][l][0], b0); _mm_store_si128((__m128i*)&limb[h][l][4], b1);
        }
      }
      for (int half = 0; half < 2; ++half) {
        for (int kp = 0; kp < 2; ++kp) {
          __m512i A000 = _mm512_setzero_si512();
          __m512i A001 = _mm512_setzero_si512();
          __m512i A010 = _mm512_setzero_si512();
          __m512i A011 = _mm512_setzero_si512();
          __m512i A020 = _mm512_setzero_si512();
          __m512i A021 = _mm512_setzero_si512();
          __m512i A100 = _mm512_setzero_si512();
          __m512i A101 = _mm512_setzero_si512();
          __m512i A110 = _mm512_setzero_si512();
          __m512i A111 = _mm512_setzero_si512();
          __m512i A120 = _mm512_setzero_si512();
          __m512i A121 = _mm512_setzero_si512();
          for (int g = 0; g < 8; ++g) {
            const int8_t* r0 = v + (t + 4 * g) * 128 + 64 * half;
            const __m512i x0 = _mm512_load_si512(r0), x1 = _mm512_load_si512(r0 + 128), x2 = _mm512_load_si512(r0 + 256), x3 = _mm512_load_si512(r0 + 384);
            const __m512i ta = kp == 0 ? _mm512_unpacklo_epi8(x0, x1) : _mm512_unpackhi_epi8(x0, x1);
            const __m512i tb = kp == 0 ? _mm512_unpacklo_epi8(x2, x3) : _mm512_unpackhi_epi8(x2, x3);
            const __m512i ua = _mm512_unpacklo_epi16(ta, tb), ub = _mm512_unpackhi_epi16(ta, tb);
            { const __m512i bb = _mm512_set1_epi32(limb[0][0][g]); A000 = _mm512_dpbusd_epi32(A000, bb, ua); A001 = _mm512_dpbusd_epi32(A001, bb, ub); }
            { const __m512i bb = _mm512_set1_epi32(limb[0][1][g]); A010 = _mm512_dpbusd_epi32(A010, bb, ua); A011 = _mm512_dpbusd_epi32(A011, bb, ub); }
            { const __m512i bb = _mm512_set1_epi32(limb[0][2][g]); A020 = _mm512_dpbusd_epi32(A020, bb, ua); A021 = _mm512_dpbusd_epi32(A021, bb, ub); }
            { const __m512i bb = _mm512_set1_epi32(limb[1][0][g]); A100 = _mm512_dpbusd_epi32(A100, bb, ua); A101 = _mm512_dpbusd_epi32(A101, bb, ub); }
            { const __m512i bb = _mm512_set1_epi32(limb[1][1][g]); A110 = _mm512_dpbusd_epi32(A110, bb, ua); A111 = _mm512_dpbusd_epi32(A111, bb, ub); }
            { const __m512i bb = _mm512_set1_epi32(limb[1][2][g]); A120 = _mm512_dpbusd_epi32(A120, bb, ua); A121 = _mm512_dpbusd_epi32(A121, bb, ub); }
          }
          { const __m512 s = _mm512_set1_ps(mh[0] / 8388608.0f);
            float* dst0 = accv[0] + 64 * half + 16 * (2 * kp);
            __m512 f0 = _mm512_fmadd_ps(_mm512_cvtepi32_ps(A020), _mm512_set1_ps(65536.0f), _mm512_fmadd_ps(_mm512_cvtepi32_ps(A010), _mm512_set1_ps(256.0f), _mm512_cvtepi32_ps(A000)));
            __m512 f1 = _mm512_fmadd_ps(_mm512_cvtepi32_ps(A021), _mm512_set1_ps(65536.0f), _mm512_fmadd_ps(_mm512_cvtepi32_ps(A011), _mm512_set1_ps(256.0f), _mm512_cvtepi32_ps(A001)));
            _mm512_store_ps(dst0, _mm512_fmadd_ps(f0, s, _mm512_load_ps(dst0)));
            _mm512_store_ps(dst0 + 16, _mm512_fmadd_ps(f1, s, _mm512_load_ps(dst0 + 16))); }
          { const __m512 s = _mm512_set1_ps(mh[1] / 8388608.0f);
            float* dst0 = accv[1] + 64 * half + 16 * (2 * kp);
            __m512 f0 = _mm512_fmadd_ps(_mm512_cvtepi32_ps(A120), _mm512_set1_ps(65536.0f), _mm512_fmadd_ps(_mm512_cvtepi32_ps(A110), _mm512_set1_ps(256.0f), _mm512_cvtepi32_ps(A100)));
            __m512 f1 = _mm512_fmadd_ps(_mm512_cvtepi32_ps(A121), _mm512_set1_ps(65536.0f), _mm512_fmadd_ps(_mm512_cvtepi32_ps(A111), _mm512_set1_ps(256.0f), _mm512_cvtepi32_ps(A101)));
            _mm512_store_ps(dst0, _mm512_fmadd_ps(f0, s, _mm512_load_ps(dst0)));
            _mm512_store_ps(dst0 + 16, _mm512_fmadd_ps(f1, s, _mm512_load_ps(dst0 + 16))); }
        }
      }
    }
    double tv = double(__rdtsc() - t0); if (tv < bv) bv = tv;
  }
  // check: sum of accf vs permuted accv
  double sf = 0, sv = 0; for (int h = 0; h < 2; ++h) for (int j = 0; j < 128; ++j) { sf += accf[h][j]; sv += accv[h][j]; }
  printf("rows %ld: float %.2f ns/row  vnni %.2f ns/row  (sums %.6g %.6g rel %.2g)\n", nrows, bf / 2.5 / nrows, bv / 2.5 / nrows, sf, sv, (sv - sf) / sf);
}
