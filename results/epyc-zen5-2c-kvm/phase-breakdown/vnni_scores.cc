// Record of a measurement, not part of the build (phase-breakdown/README.md): the int8 score
// phase (s[r][h] = scale * kscale[r] * (q_h . k_r), head_dim 128) three ways, L2-resident rows:
//   fp32:   kvbench's design: each 16-element K chunk widened to fp32 once per block of 4 heads,
//           one FMA per head (4 rows x 4 heads per block, Sum4-style lane sums at the end);
//   vnni1:  the query quantised to int8 per head (one limb, as llama.cpp's q8_0 dot products do),
//           K bytes offset to u8 (xor 0x80, corrected by 128 * sum(q8)), one VPDPBUSD per 64 K
//           bytes and head: NOT exact, its score error is printed beside int8 storage's own;
//   vnni3:  the query as three int8 limbs (24 bits, what kvbench's AMX path uses): exact to fp32.
// Prints ns per (row, KV head) for G = 2 and G = 8, and the largest score errors against a
// double-precision reference of the dequantised rows, and of the rows before quantisation.
// g++ -O3 -mavx512f -mavx512bw -mavx512vl -mavx512vnni -mfma vnni_scores.cc; ./a.out ROWS REPS
#include <immintrin.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <vector>

namespace {

constexpr int kD = 128;

inline __m512 widen(const std::int8_t* p) {
  return _mm512_cvtepi32_ps(_mm512_cvtepi8_epi32(_mm_loadu_si128(reinterpret_cast<const __m128i*>(p))));
}

// Lane sums of four vectors: [sum a, sum b, sum c, sum d].
inline __m128 sum4(__m512 a, __m512 b, __m512 c, __m512 d) {
  const __m512 ab = _mm512_add_ps(_mm512_unpacklo_ps(a, b), _mm512_unpackhi_ps(a, b));  // a0b0a1b1 per 128
  const __m512 cd = _mm512_add_ps(_mm512_unpacklo_ps(c, d), _mm512_unpackhi_ps(c, d));
  const __m512 abcd = _mm512_add_ps(_mm512_castpd_ps(_mm512_unpacklo_pd(_mm512_castps_pd(ab), _mm512_castps_pd(cd))),
                                    _mm512_castpd_ps(_mm512_unpackhi_pd(_mm512_castps_pd(ab), _mm512_castps_pd(cd))));
  const __m256 h = _mm256_add_ps(_mm512_castps512_ps256(abcd), _mm512_extractf32x8_ps(abcd, 1));
  return _mm_add_ps(_mm256_castps256_ps128(h), _mm256_extractf128_ps(h, 1));
}

struct Inputs {
  int G;
  long rows;
  std::vector<std::int8_t> k;       // [rows][kD]
  std::vector<float> kscale;        // [rows]
  std::vector<float> kf;            // [rows][kD] before quantisation
  std::vector<float> q;             // [G][kD]
  std::vector<std::int8_t> q8;      // one limb [G][kD]
  std::vector<float> q8scale;       // [G]
  std::vector<std::int32_t> q8corr; // [G] 128 * sum(q8)
  std::vector<std::int8_t> ql[3];   // three limbs [G][kD]
  std::vector<float> qlscale;       // [G] unit of the lowest limb
  std::vector<std::int32_t> qlcorr[3];
};

Inputs make_inputs(int G, long rows, unsigned seed) {
  Inputs in;
  in.G = G;
  in.rows = rows;
  std::mt19937 rng(seed);
  std::normal_distribution<float> nd(0.0f, 1.0f);
  in.k.resize(rows * kD);
  in.kf.resize(rows * kD);
  in.kscale.resize(rows);
  for (long r = 0; r < rows; ++r) {
    float m = 0;
    for (int i = 0; i < kD; ++i) m = std::max(m, std::fabs(in.kf[r * kD + i] = nd(rng) * (1 + (i % 7))));
    const float s = m / 127.0f;
    in.kscale[r] = s;
    for (int i = 0; i < kD; ++i) in.k[r * kD + i] = static_cast<std::int8_t>(std::nearbyint(in.kf[r * kD + i] / s));
  }
  in.q.resize(G * kD);
  for (auto& x : in.q) x = nd(rng) * 0.3f;
  in.q8.resize(G * kD);
  in.q8scale.resize(G);
  in.q8corr.resize(G);
  for (auto& l : in.ql) l.resize(G * kD);
  for (auto& c : in.qlcorr) c.resize(G);
  in.qlscale.resize(G);
  for (int h = 0; h < G; ++h) {
    float m = 0;
    for (int i = 0; i < kD; ++i) m = std::max(m, std::fabs(in.q[h * kD + i]));
    const float s = m / 127.0f;
    in.q8scale[h] = s;
    std::int32_t sum = 0;
    for (int i = 0; i < kD; ++i) sum += in.q8[h * kD + i] = static_cast<std::int8_t>(std::nearbyint(in.q[h * kD + i] / s));
    in.q8corr[h] = 128 * sum;
    // Three limbs: q = u * (l0 * 2^16 + l1 * 2^8 + l2), each limb in [-128, 127].
    const double u = m / (127.0 * 65536.0);
    in.qlscale[h] = static_cast<float>(u);
    std::int32_t s0 = 0, s1 = 0, s2 = 0;
    for (int i = 0; i < kD; ++i) {
      long v = std::lround(in.q[h * kD + i] / u);
      const long l2 = ((v % 256) + 256 + 128) % 256 - 128;
      v = (v - l2) / 256;
      const long l1 = ((v % 256) + 256 + 128) % 256 - 128;
      const long l0 = (v - l1) / 256;
      in.ql[0][h * kD + i] = static_cast<std::int8_t>(l0);
      in.ql[1][h * kD + i] = static_cast<std::int8_t>(l1);
      in.ql[2][h * kD + i] = static_cast<std::int8_t>(l2);
      s0 += l0, s1 += l1, s2 += l2;
    }
    in.qlcorr[0][h] = 128 * s0, in.qlcorr[1][h] = 128 * s1, in.qlcorr[2][h] = 128 * s2;
  }
  return in;
}

// fp32 path: blocks of 4 rows x 4 heads (2 at G = 2).
template <int H>
void scores_fp32(const Inputs& in, float scale, float* s /* [rows][G] */) {
  for (long r0 = 0; r0 < in.rows; r0 += 4) {
    for (int h0 = 0; h0 < in.G; h0 += H) {
      __m512 acc[4][H];
      for (auto& a : acc) for (auto& x : a) x = _mm512_setzero_ps();
      for (int c = 0; c < kD; c += 16) {
        __m512 qv[H];
        for (int h = 0; h < H; ++h) qv[h] = _mm512_loadu_ps(&in.q[(h0 + h) * kD + c]);
        for (int r = 0; r < 4; ++r) {
          const __m512 kv = widen(&in.k[(r0 + r) * kD + c]);
          for (int h = 0; h < H; ++h) acc[r][h] = _mm512_fmadd_ps(kv, qv[h], acc[r][h]);
        }
      }
      const __m128 rs = _mm_mul_ps(_mm_set1_ps(scale), _mm_loadu_ps(&in.kscale[r0]));
      for (int h = 0; h < H; ++h) {
        alignas(16) float out[4];
        _mm_store_ps(out, _mm_mul_ps(sum4(acc[0][h], acc[1][h], acc[2][h], acc[3][h]), rs));
        for (int r = 0; r < 4; ++r) s[(r0 + r) * in.G + h0 + h] = out[r];
      }
    }
  }
}

// VNNI with L query limbs: blocks of 4 rows x H heads, 64 K bytes per VPDPBUSD.
template <int L, int H>
void scores_vnni(const Inputs& in, float scale, float* s) {
  const __m512i flip = _mm512_set1_epi8(static_cast<char>(0x80));
  const std::vector<std::int8_t>* limbs = L == 1 ? &in.q8 : in.ql;
  for (long r0 = 0; r0 < in.rows; r0 += 4) {
    for (int h0 = 0; h0 < in.G; h0 += H) {
      __m512i acc[L][4][H];
      for (auto& a : acc) for (auto& b : a) for (auto& x : b) x = _mm512_setzero_si512();
      for (int c = 0; c < kD; c += 64) {
        __m512i ku[4];
        for (int r = 0; r < 4; ++r) ku[r] = _mm512_xor_si512(_mm512_loadu_si512(&in.k[(r0 + r) * kD + c]), flip);
        for (int l = 0; l < L; ++l)
          for (int h = 0; h < H; ++h) {
            const __m512i qv = _mm512_loadu_si512(&limbs[l][(h0 + h) * kD + c]);
            for (int r = 0; r < 4; ++r) acc[l][r][h] = _mm512_dpbusd_epi32(acc[l][r][h], ku[r], qv);
          }
      }
      const __m128 rs = _mm_mul_ps(_mm_set1_ps(scale), _mm_loadu_ps(&in.kscale[r0]));
      for (int h = 0; h < H; ++h) {
        __m128 dot;
        if constexpr (L == 1) {
          const __m128 raw = sum4(_mm512_cvtepi32_ps(acc[0][0][h]), _mm512_cvtepi32_ps(acc[0][1][h]),
                                  _mm512_cvtepi32_ps(acc[0][2][h]), _mm512_cvtepi32_ps(acc[0][3][h]));
          dot = _mm_mul_ps(_mm_sub_ps(raw, _mm_set1_ps(static_cast<float>(in.q8corr[h0 + h]))),
                           _mm_set1_ps(in.q8scale[h0 + h]));
        } else {
          // Limb sums stay below 2^24 (128 products of at most 255 * 128), so their fp32 lane
          // sums are exact.
          __m128 part[3];
          for (int l = 0; l < 3; ++l)
            part[l] = _mm_sub_ps(sum4(_mm512_cvtepi32_ps(acc[l][0][h]), _mm512_cvtepi32_ps(acc[l][1][h]),
                                      _mm512_cvtepi32_ps(acc[l][2][h]), _mm512_cvtepi32_ps(acc[l][3][h])),
                                 _mm_set1_ps(static_cast<float>(in.qlcorr[l][h0 + h])));
          dot = _mm_fmadd_ps(part[0], _mm_set1_ps(65536.0f), _mm_fmadd_ps(part[1], _mm_set1_ps(256.0f), part[2]));
          dot = _mm_mul_ps(dot, _mm_set1_ps(in.qlscale[h0 + h]));
        }
        alignas(16) float out[4];
        _mm_store_ps(out, _mm_mul_ps(dot, rs));
        for (int r = 0; r < 4; ++r) s[(r0 + r) * in.G + h0 + h] = out[r];
      }
    }
  }
}

template <class F>
double best_ns_per_row(F f, long rows, int reps) {
  double best = 1e30;
  for (int i = 0; i < reps; ++i) {
    const auto t0 = std::chrono::steady_clock::now();
    f();
    const double ns = std::chrono::duration<double, std::nano>(std::chrono::steady_clock::now() - t0).count();
    best = std::min(best, ns / static_cast<double>(rows));
  }
  return best;
}

void run(int G, long rows, int reps) {
  const Inputs in = make_inputs(G, rows, 42u + static_cast<unsigned>(G));
  const float scale = 1.0f / std::sqrt(static_cast<float>(kD));
  std::vector<float> sf(rows * G), s1(rows * G), s3(rows * G);
  auto fp32 = [&] { G == 2 ? scores_fp32<2>(in, scale, sf.data()) : scores_fp32<4>(in, scale, sf.data()); };
  auto vnni1 = [&] { G == 2 ? scores_vnni<1, 2>(in, scale, s1.data()) : scores_vnni<1, 4>(in, scale, s1.data()); };
  // Three limbs x 4 rows x 4 heads would not fit the registers: heads in pairs.
  auto vnni3 = [&] { scores_vnni<3, 2>(in, scale, s3.data()); };
  double tf = 1e30, t1 = 1e30, t3 = 1e30;
  for (int round = 0; round < 3; ++round) {  // alternating, best of all
    tf = std::min(tf, best_ns_per_row(fp32, rows, reps));
    t1 = std::min(t1, best_ns_per_row(vnni1, rows, reps));
    t3 = std::min(t3, best_ns_per_row(vnni3, rows, reps));
  }
  // Errors against double references: of the dequantised rows (the kernel's exact answer), and
  // of the rows before quantisation (what int8 storage itself already costs).
  double ef = 0, e1 = 0, e3 = 0, estore = 0, smax = 0;
  for (long r = 0; r < rows; ++r)
    for (int h = 0; h < G; ++h) {
      double deq = 0, orig = 0;
      for (int i = 0; i < kD; ++i) {
        deq += static_cast<double>(in.q[h * kD + i]) * in.k[r * kD + i] * in.kscale[r];
        orig += static_cast<double>(in.q[h * kD + i]) * in.kf[r * kD + i];
      }
      deq *= scale, orig *= scale;
      const long i = r * G + h;
      ef = std::max(ef, std::fabs(sf[i] - deq));
      e1 = std::max(e1, std::fabs(s1[i] - deq));
      e3 = std::max(e3, std::fabs(s3[i] - deq));
      estore = std::max(estore, std::fabs(deq - orig));
      smax = std::max(smax, std::fabs(deq));
    }
  std::printf("G=%d rows=%ld  ns per (row, KV head): fp32 %.3f  vnni1 %.3f (%.2fx)  vnni3 %.3f (%.2fx)   "
              "max |score error|: fp32 %.2e  vnni1 %.2e  vnni3 %.2e  int8 storage %.2e  (max |score| %.2f)\n",
              G, rows, tf, t1, tf / t1, t3, tf / t3, ef, e1, e3, estore, smax);
}

}  // namespace

int main(int argc, char** argv) {
  const long rows = argc > 1 ? std::atol(argv[1]) : 2048;
  const int reps = argc > 2 ? std::atoi(argv[2]) : 200;
  for (int G : {2, 8}) run(G, rows / 4 * 4, reps);
  return 0;
}
