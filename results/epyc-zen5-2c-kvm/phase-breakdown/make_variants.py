"""Record of a measurement, not part of the build: the variants of kernels/attention.cc that
build.sh makes (a harness_variants.sh spec), phases of the kernel knocked out (timing only; the
results are wrong on purpose):
  cur     unchanged
  nopf    no software prefetch (StreamPrefetch returns at once)
  sconly  scores only (no softmax, no V accumulation, no prefetch)
  aconly  V accumulation only (no scores, no softmax, no prefetch)
  smonly  softmax only (no scores, no V accumulation, no prefetch)
  q8      int8 scores from VNNI with a one-limb (rounded) query: see Q8_CODE
Its patterns are those of the measured sources (main f9251b2; q8: 497a663); later sources
changed the softmax comment they anchor on."""
PF = ("    r1 = std::min(r1, rows);\n    if (r0 >= r1) return;",
      "    return;\n    r1 = std::min(r1, rows);\n    if (r0 >= r1) return;")
ACC = ("    g = 0;\n    pass = 0;\n    const auto vpass",
       "    continue;\n    g = 0;\n    pass = 0;\n    const auto vpass")
SM = ("    // Online softmax, once per tile and head.\n    for (g = 0; g < G; ++g) {",
      "    // Online softmax, once per tile and head.\n    for (g = 0; g < 0; ++g) {")
SC = ("    for (; g + kHeadsBlock <= G; g += kHeadsBlock)\n      ScoreHeads",
      "    g = G;\n    for (; g + kHeadsBlock <= G; g += kHeadsBlock)\n      ScoreHeads")
# q8 (2026-11-25, eighth session): int8 scores from VNNI with the query rounded to one int8 limb
# per head (llama.cpp's q8_0 way), quantised once per call; not exact, timing only (vnni_scores.cc
# has the error). Only for int8 rows of head_dim 128 on AVX3 targets; the rest is unchanged.
Q8_CODE = r"""
#undef KVB_Q8
#if HWY_TARGET == HWY_AVX3 || HWY_TARGET == HWY_AVX3_DL
#define KVB_Q8 1
struct Q8Query {
  const float* q = nullptr;
  int heads = 0;
  alignas(64) std::int8_t q8[16][128];
  float sq[16], corr[16];
};
inline const Q8Query& Q8For(const float* q, int heads) {
  thread_local Q8Query cache[4];
  thread_local int next = 0;
  for (const Q8Query& c : cache)
    if (c.q == q && c.heads == heads) return c;
  Q8Query& c = cache[next++ & 3];
  c.q = q;
  c.heads = heads;
  for (int h = 0; h < heads; ++h) {
    float m = 0;
    for (int i = 0; i < 128; ++i) m = std::max(m, std::fabs(q[h * 128 + i]));
    const float s = m > 0 ? m / 127.0f : 1.0f;
    int sum = 0;
    for (int i = 0; i < 128; ++i) sum += c.q8[h][i] = static_cast<std::int8_t>(std::nearbyint(q[h * 128 + i] / s));
    c.sq[h] = s;
    c.corr[h] = 128.0f * static_cast<float>(sum);
  }
  return c;
}
__attribute__((target("avx512f,avx512bw,avx512dq,avx512vl,avx512vnni"))) inline __m128 Q8Sum4(__m512 a, __m512 b, __m512 c, __m512 d) {
  const __m512 ab = _mm512_add_ps(_mm512_unpacklo_ps(a, b), _mm512_unpackhi_ps(a, b));
  const __m512 cd = _mm512_add_ps(_mm512_unpacklo_ps(c, d), _mm512_unpackhi_ps(c, d));
  const __m512 abcd = _mm512_add_ps(_mm512_castpd_ps(_mm512_unpacklo_pd(_mm512_castps_pd(ab), _mm512_castps_pd(cd))),
                                    _mm512_castpd_ps(_mm512_unpackhi_pd(_mm512_castps_pd(ab), _mm512_castps_pd(cd))));
  const __m256 h = _mm256_add_ps(_mm512_castps512_ps256(abcd), _mm512_extractf32x8_ps(abcd, 1));
  return _mm_add_ps(_mm256_castps256_ps128(h), _mm256_extractf128_ps(h, 1));
}
// R rows (<= 4) of a tile against H heads; rows past R give finite junk (the tile masks them).
template <int R, int H>
__attribute__((target("avx512f,avx512bw,avx512dq,avx512vl,avx512vnni"), always_inline)) inline void Q8Rows(
    const Q8Query& c, const std::int8_t* k, std::int64_t stride, float* s_rows, std::int64_t kT, float scale,
    const float* kscale) {
  const __m512i flip = _mm512_set1_epi8(static_cast<char>(0x80));
  __m512i acc[4][H];
  for (int r = 0; r < 4; ++r)
    for (int h = 0; h < H; ++h) acc[r][h] = _mm512_setzero_si512();
  for (int j = 0; j < 128; j += 64) {
    __m512i ku[R];
    for (int r = 0; r < R; ++r) ku[r] = _mm512_xor_si512(_mm512_loadu_si512(k + r * stride + j), flip);
    for (int h = 0; h < H; ++h) {
      const __m512i qv = _mm512_load_si512(c.q8[h] + j);
      for (int r = 0; r < R; ++r) acc[r][h] = _mm512_dpbusd_epi32(acc[r][h], ku[r], qv);
    }
  }
  alignas(16) float ks[4] = {1.0f, 1.0f, 1.0f, 1.0f};
  if (kscale != nullptr)
    for (int r = 0; r < R; ++r) ks[r] = kscale[r];
  const __m128 rs = _mm_mul_ps(_mm_set1_ps(scale), _mm_load_ps(ks));
  for (int h = 0; h < H; ++h) {
    const __m128 raw = Q8Sum4(_mm512_cvtepi32_ps(acc[0][h]), _mm512_cvtepi32_ps(acc[1][h]),
                              _mm512_cvtepi32_ps(acc[2][h]), _mm512_cvtepi32_ps(acc[3][h]));
    const __m128 dot = _mm_mul_ps(_mm_sub_ps(raw, _mm_set1_ps(c.corr[h])), _mm_set1_ps(c.sq[h]));
    _mm_storeu_ps(s_rows + h * kT, _mm_mul_ps(dot, rs));
  }
}
#else
#define KVB_Q8 0
#endif

// Scores for R rows x H heads: s[h][r] = scale * rowscale * (q_h . k_r).
"""
Q8_TILE = ("// pf (the first head pass's, or each pass's share: see PartialTyped) prefetches from row pf_row\n", r"""#if KVB_Q8
template <int H, std::int64_t kT, typename P>
__attribute__((target("avx512f,avx512bw,avx512dq,avx512vl,avx512vnni"), noinline)) void ScoreHeadsQ8(
    P k, std::int64_t stride, std::int64_t rows, const float* q, float* s, float scale, const float* kscale,
    const StreamPrefetch<P>* pf, std::int64_t pf_row) {
  const Q8Query& c = Q8For(q, H);
  std::int64_t r = 0;
  for (; r + 4 <= rows; r += 4) {
    if (pf) (*pf)(pf_row + r, pf_row + r + 4);
    Q8Rows<4, H>(c, k + r * stride, stride, s + r, kT, scale, kscale ? kscale + r : nullptr);
  }
  if (pf && r < rows) (*pf)(pf_row + r, pf_row + rows);
  const float* ks = kscale ? kscale + r : nullptr;
  switch (rows - r) {
    case 1: Q8Rows<1, H>(c, k + r * stride, stride, s + r, kT, scale, ks); break;
    case 2: Q8Rows<2, H>(c, k + r * stride, stride, s + r, kT, scale, ks); break;
    case 3: Q8Rows<3, H>(c, k + r * stride, stride, s + r, kT, scale, ks); break;
    default: break;
  }
}
#endif

// pf (the first head pass's, or each pass's share: see PartialTyped) prefetches from row pf_row
""")
Q8_DEF = ("// Scores for R rows x H heads: s[h][r] = scale * rowscale * (q_h . k_r).\n", Q8_CODE.lstrip("\n"))
Q8_HOOK = ("                           std::int64_t pf_row = 0) {\n  std::int64_t r = 0;\n  for (; r + kRowsBlock <= rows; r += kRowsBlock) {",
           "                           std::int64_t pf_row = 0) {\n#if KVB_Q8\n  if constexpr (std::is_same_v<P, const std::int8_t*>) {\n"
           "    if (d == 128) {\n      ScoreHeadsQ8<H, kT>(k, stride, rows, q, s, scale, kscale, pf, pf_row);\n      return;\n    }\n  }\n#endif\n"
           "  std::int64_t r = 0;\n  for (; r + kRowsBlock <= rows; r += kRowsBlock) {")
variants = {"cur": [], "nopf": [PF], "sconly": [PF, ACC, SM], "aconly": [PF, SC, SM], "smonly": [PF, SC, ACC],
            "q8": [Q8_DEF, Q8_TILE, Q8_HOOK]}
