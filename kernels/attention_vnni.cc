// int8 V rows weighed with VPDPBUSD instead of converted to fp32. The fp32 path spends per 64-byte
// line of a V row 4 widening loads, 4 converts and 4 FMAs per head; here four rows' lines are
// interleaved by 8 byte and word unpacks, so that each dword of a vector holds one dim of the four
// rows (the dims permuted within 128-bit lanes), and each vector takes one VPDPBUSD per head and
// limb of the weights: at G = 2, 2 unpacks and 6 dot products per row-line against 12. The weights
// (softmax probabilities times the V row scales, at most `bound`) become 24-bit fixed point in
// three uint8 limbs, so the result matches fp32's rounding; limbs 2 and 1 join in int32 (exact
// over 32 rows: |sum| <= 32 * 255 * 128 * 257 < 2^31) and limb 0 apart, two converts and FMAs
// per vector and 32-row block.
// Timed first as a bare loop of the kernel's access shape (results/epyc-zen5-2c-kvm/kernel-rate/
// vnni-values.md): from DRAM, the EMR host 1.08-1.09x the rate (medians, 2x spreads), the Zen 5
// guest 0.95x. The intrinsics come from function target attributes only, as in
// kernels/attention_amx.cc: the library still runs on CPUs without the instruction.
#include "kernels/attention_vnni.h"

#include <atomic>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <mutex>

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#define KVB_VNNI_X86 1
#include <immintrin.h>
#else
#define KVB_VNNI_X86 0
#endif

// GCC 12's own AVX-512 intrinsics (_mm512_setzero_si512, _mm512_cvtepi32_epi8, ...) start from
// a self-initialised vector that -Wmaybe-uninitialized reports once inlined here.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"

namespace kvb::detail {
namespace {

constexpr std::int64_t kBlockRows = 32;  // rows per exact int32 sum
constexpr int kLimbs = 3;
constexpr float kFull = 16777215.0f;  // 2^24 - 1: a weight equal to the bound

#if KVB_VNNI_X86
#define KVB_VNNI_TARGET __attribute__((target("avx512f,avx512bw,avx512vnni")))

bool detect_vnni() {
  // libgcc's and compiler-rt's checks include the OS's ZMM state (XCR0).
  __builtin_cpu_init();
  return __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
         __builtin_cpu_supports("avx512vnni");
}

// Limb l of each weight of rows [0, n) of one head (n <= 32, a multiple of 4), four rows to a
// dword: limbs[l][g] holds rows 4g..4g+3. Rows past n take 0.
KVB_VNNI_TARGET inline void weight_limbs(const float* w, std::int64_t n, float inv,
                                         std::uint32_t (*limbs)[kBlockRows / 4]) {
  const __m512 scale = _mm512_set1_ps(inv);
  const __m512i full = _mm512_set1_epi32(static_cast<int>(kFull));
  const __m512i byte = _mm512_set1_epi32(255);
  for (std::int64_t r = 0; r < kBlockRows; r += 16) {
    const __mmask16 live = r < n ? _cvtu32_mask16(n - r >= 16 ? 0xFFFFu : (1u << (n - r)) - 1) : 0;
    // Rounded to nearest, and never past 2^24 - 1 (a weight a rounding above the bound).
    const __m512i q = _mm512_min_epi32(
        _mm512_cvtps_epi32(_mm512_mul_ps(_mm512_maskz_loadu_ps(live, w + r), scale)), full);
    for (int l = 0; l < kLimbs; ++l) {
      const __m512i limb = _mm512_and_si512(_mm512_srli_epi32(q, 8 * l), byte);
      _mm_storeu_si128(reinterpret_cast<__m128i*>(&limbs[l][r / 4]), _mm512_cvtepi32_epi8(limb));
    }
  }
}

// The four interleaved vectors of one 64-byte line (byte offset `line`) of rows r..r+3: dword i of
// 128-bit lane k of vector o holds dim 16k + 4o + i of the four rows. Only the pair `half` (0:
// vectors 0 and 1, 1: vectors 2 and 3) is made.
KVB_VNNI_TARGET inline void interleave_half(const std::int8_t* row, std::int64_t stride, int half,
                                            __m512i* t) {
  const __m512i x0 = _mm512_loadu_si512(row), x1 = _mm512_loadu_si512(row + stride);
  const __m512i x2 = _mm512_loadu_si512(row + 2 * stride), x3 = _mm512_loadu_si512(row + 3 * stride);
  const __m512i a = half == 0 ? _mm512_unpacklo_epi8(x0, x1) : _mm512_unpackhi_epi8(x0, x1);
  const __m512i b = half == 0 ? _mm512_unpacklo_epi8(x2, x3) : _mm512_unpackhi_epi8(x2, x3);
  t[0] = _mm512_unpacklo_epi16(a, b);
  t[1] = _mm512_unpackhi_epi16(a, b);
}

// acc (64 floats in element order) += the four permuted vectors f (see interleave_half): a 4x4
// transpose of 128-bit blocks.
KVB_VNNI_TARGET inline void add_in_order(const __m512* f, float* acc) {
  const __m512 t0 = _mm512_shuffle_f32x4(f[0], f[1], 0x44), t1 = _mm512_shuffle_f32x4(f[0], f[1], 0xEE);
  const __m512 t2 = _mm512_shuffle_f32x4(f[2], f[3], 0x44), t3 = _mm512_shuffle_f32x4(f[2], f[3], 0xEE);
  const __m512 n[4] = {_mm512_shuffle_f32x4(t0, t2, 0x88), _mm512_shuffle_f32x4(t0, t2, 0xDD),
                       _mm512_shuffle_f32x4(t1, t3, 0x88), _mm512_shuffle_f32x4(t1, t3, 0xDD)};
  for (int i = 0; i < 4; ++i) _mm512_storeu_ps(acc + 16 * i, _mm512_add_ps(_mm512_loadu_ps(acc + 16 * i), n[i]));
}

// H heads (1 or 2) over one block of n rows (a multiple of 4, at most 32): limbs[h][l][g] as
// weight_limbs wrote them, unit = bound / (2^24 - 1).
template <int H>
KVB_VNNI_TARGET void block_heads(const std::int8_t* v, std::int64_t stride, std::int64_t n, std::int32_t d,
                                 const std::uint32_t (*limbs)[kLimbs][kBlockRows / 4], float unit, float* acc) {
  const __m512 high_unit = _mm512_set1_ps(256.0f * unit), low_unit = _mm512_set1_ps(unit);
  const std::int64_t groups = n / 4;
  for (std::int32_t line = 0; line < d; line += 64) {
    __m512 f[H][4];  // this line's sums per head, permuted
    for (int half = 0; half < 2; ++half) {
      __m512i s[H][kLimbs][2];
      for (auto& h : s)
        for (auto& l : h) l[0] = l[1] = _mm512_setzero_si512();
      for (std::int64_t g = 0; g < groups; ++g) {
        __m512i t[2];
        interleave_half(v + 4 * g * stride + line, stride, half, t);
        for (int h = 0; h < H; ++h)
          for (int l = 0; l < kLimbs; ++l) {
            const __m512i wl = _mm512_set1_epi32(static_cast<int>(limbs[h][l][g]));
            s[h][l][0] = _mm512_dpbusd_epi32(s[h][l][0], wl, t[0]);
            s[h][l][1] = _mm512_dpbusd_epi32(s[h][l][1], wl, t[1]);
          }
      }
      for (int h = 0; h < H; ++h)
        for (int o = 0; o < 2; ++o) {
          const __m512i high = _mm512_add_epi32(_mm512_slli_epi32(s[h][2][o], 8), s[h][1][o]);
          f[h][2 * half + o] = _mm512_fmadd_ps(_mm512_cvtepi32_ps(high), high_unit,
                                               _mm512_mul_ps(_mm512_cvtepi32_ps(s[h][0][o]), low_unit));
        }
    }
    for (int h = 0; h < H; ++h) add_in_order(f[h], acc + std::int64_t{h} * d + line);
  }
}

KVB_VNNI_TARGET std::int64_t accumulate(const std::int8_t* v, std::int64_t stride, std::int64_t rows,
                                        std::int32_t d, const float* w, std::int64_t w_stride,
                                        std::int32_t heads, float bound, float* acc) {
  const std::int64_t done = rows - rows % 4;
  const float unit = bound / kFull, inv = kFull / bound;
  std::uint32_t limbs[2][kLimbs][kBlockRows / 4];
  for (std::int64_t r0 = 0; r0 < done; r0 += kBlockRows) {
    const std::int64_t n = done - r0 < kBlockRows ? done - r0 : kBlockRows;
    const std::int8_t* vb = v + r0 * stride;
    std::int32_t h = 0;
    for (; h + 2 <= heads; h += 2) {
      weight_limbs(w + h * w_stride + r0, n, inv, limbs[0]);
      weight_limbs(w + (h + 1) * w_stride + r0, n, inv, limbs[1]);
      block_heads<2>(vb, stride, n, d, limbs, unit, acc + std::int64_t{h} * d);
    }
    if (h < heads) {
      weight_limbs(w + h * w_stride + r0, n, inv, limbs[0]);
      block_heads<1>(vb, stride, n, d, limbs, unit, acc + std::int64_t{h} * d);
    }
  }
  return done;
}
#else
bool detect_vnni() { return false; }
std::int64_t accumulate(const std::int8_t*, std::int64_t, std::int64_t, std::int32_t, const float*,
                        std::int64_t, std::int32_t, float, float*) {
  return 0;
}
#endif

std::once_flag g_select_once;
bool g_supported = false;
// -1 until the first call decides, then 0 (off) or 1 (on): one load per call after that.
std::atomic<int> g_state{-1};

void select_once() {
  std::call_once(g_select_once, [] {
    g_supported = detect_vnni();
    bool on = false;
    if (const char* env = std::getenv("KVBENCH_VNNI"); env != nullptr && env[0] != '\0')
      on = std::strcmp(env, "0") != 0;
    g_state.store(g_supported && on ? 1 : 0, std::memory_order_relaxed);
  });
}

}  // namespace

bool vnni_values_supported() noexcept {
  select_once();
  return g_supported;
}

bool vnni_values_enabled() noexcept {
  int state = g_state.load(std::memory_order_relaxed);
  if (state < 0) {
    select_once();
    state = g_state.load(std::memory_order_relaxed);
  }
  return state == 1;
}

bool set_vnni_values_enabled(bool on) noexcept {
  select_once();
  g_state.store(g_supported && on ? 1 : 0, std::memory_order_relaxed);
  return vnni_values_enabled();
}

std::int64_t vnni_int8_accumulate(const std::int8_t* v, std::int64_t stride, std::int64_t rows,
                                  std::int32_t d, const float* w, std::int64_t w_stride,
                                  std::int32_t heads, float bound, float* acc) noexcept {
  if (!vnni_values_enabled() || d % 64 != 0 || !std::isnormal(bound) || bound < 0.0f) return 0;
  return accumulate(v, stride, rows, d, w, w_stride, heads, bound, acc);
}

}  // namespace kvb::detail

#pragma GCC diagnostic pop
