// Diagnostic: DRAM read rate of the decode kernel's access shape as a bare loop, per cache dtype,
// so each dtype's kvbench decode_step can be held against what its own loads, converts and FMAs
// reach without the kernel's lane sums, softmax, calls and merges. Per (layer, KV head) item: K
// rows scored four at a time against two query heads (G = 2, two FMAs per converted vector, one
// horizontal sum per row and head), then the same tile's V rows accumulated into 2 x head_dim
// registers with a broadcast weight per row and head; the prefetch window as the kernel's (4 KB
// ahead, PREFETCHT0, K from the score phase and V from the V phase; rows of 128 bytes and less
// take both from the score phase). Rows of head_dim 128: fp32 512 B, fp16/bf16 256 B, int8 128 B;
// ~1 GiB per dtype laid out as K and V per item (ITEMS items, default 224 = 28 layers x 8 heads),
// 0x3c bytes everywhere (no subnormal products), huge pages. Variants: the kernel's tile (16
// positions, 32 for int8), a long tile (256), the kernel's tile without the window, and "loads
// only" (the kernel's tile and window, the vectors ORed instead of converted and multiplied).
// Threads (THREADS, default 1) split the items, pinned to PUS (comma list, default 0..THREADS-1),
// start together and are timed as one pass (bytes over the slowest thread's time).
// Prints one line per round, dtype and variant: best of REPS passes (default 3), in GB/s.
// Added 2026-11-29 (vnni-scores.md): int8 "VNNI scores" (the K rows scored against an exact
// three-limb int8 form of the query with VPDPBUSD instead of converted to fp32; built only with
// -mavx512vnni, run only where VARIANTS names it), and knobs to take the loop apart: BYTES (the
// whole set; e.g. 524288 with ITEMS=1 keeps it in L2), DTYPES and VARIANTS (comma lists of first
// words: fp32, ..., int8; kernel, long, nowindow, loads, VNNI, values), SKIP_V=1 or SKIP_K=1 (one side
// only) and NO_REDUCE=1 (one lane instead of each row's lane sum). Defaults as before.
// Added 2026-12-03 (vnni-values.md): int8 "VNNI values" (the V side with VPDPBUSD over rows
// interleaved by unpacks, the weights as LIMBS uint8 limbs; FIXED_MAX=1 takes the tile's largest
// weight as 1 instead of reducing it; -mavx512vnni, opt-in as VARIANTS=values), and "VNNI
// scores+values" (both sides so: VARIANTS=both).
// Build: g++ -O3 -march=x86-64-v4 -pthread dtype_rate.cc -o dtype_rate  (add -mavx512vnni for VNNI)
#include <immintrin.h>
#include <pthread.h>
#include <sched.h>
#include <sys/mman.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

namespace {

constexpr int kDim = 128, kChunks = kDim / 16;
constexpr std::size_t kWindow = 4096;
enum class Dt { kF32, kF16, kBF16, kI8 };
enum class Variant { kKernelTile, kLongTile, kNoWindow, kLoadsOnly, kVnniScores, kVnniValues, kVnniBoth };
const char* dt_name(Dt t) { return t == Dt::kF32 ? "fp32" : t == Dt::kF16 ? "fp16" : t == Dt::kBF16 ? "bf16" : "int8"; }
const char* variant_name(Variant v) {
  return v == Variant::kKernelTile ? "kernel tile, window" : v == Variant::kLongTile ? "long tile (256), window"
         : v == Variant::kNoWindow ? "kernel tile, no window"
         : v == Variant::kVnniScores ? "kernel tile, window, VNNI scores"
         : v == Variant::kVnniValues ? "kernel tile, window, VNNI values"
         : v == Variant::kVnniBoth ? "kernel tile, window, VNNI scores+values" : "kernel tile, window, loads only";
}
std::size_t row_bytes(Dt t) { return t == Dt::kF32 ? 512 : t == Dt::kI8 ? 128 : 256; }

// Elements [16c, 16c + 16) of a row as fp32.
template <Dt T>
inline __m512 chunk(const char* row, int c) {
  if constexpr (T == Dt::kF32) return _mm512_load_ps(reinterpret_cast<const float*>(row) + 16 * c);
  if constexpr (T == Dt::kF16) return _mm512_cvtph_ps(_mm256_load_si256(reinterpret_cast<const __m256i*>(row) + c));
  if constexpr (T == Dt::kBF16)
    return _mm512_castsi512_ps(_mm512_slli_epi32(_mm512_cvtepu16_epi32(_mm256_load_si256(reinterpret_cast<const __m256i*>(row) + c)), 16));
  return _mm512_cvtepi32_ps(_mm512_cvtepi8_epi32(_mm_load_si128(reinterpret_cast<const __m128i*>(row) + c)));
}
// The raw vector holding chunk c (loads only: one load per 64 bytes, as many as the converts read).
template <Dt T>
inline __m512i raw(const char* row, int c) {
  constexpr int per_line = T == Dt::kF32 ? 1 : T == Dt::kI8 ? 4 : 2;  // chunks per 64-byte vector
  return _mm512_load_si512(reinterpret_cast<const __m512i*>(row) + c / per_line);
}

inline void prefetch_range(const char* p, std::size_t bytes) {
  for (std::size_t b = 0; b < bytes; b += 64) _mm_prefetch(p + b, _MM_HINT_T0);
}

// SKIP_V=1: K scores only (diagnostic of the score side's cost), SKIP_K=1: V only.
const bool g_skip_v = std::getenv("SKIP_V") != nullptr;
const bool g_skip_k = std::getenv("SKIP_K") != nullptr;
const bool g_no_reduce = std::getenv("NO_REDUCE") != nullptr;  // one lane instead of the lane sum
template <bool kOneLane>
inline float lane_sum(__m512 v) {
  if constexpr (kOneLane) return _mm512_cvtss_f32(v);
  return _mm512_reduce_add_ps(v);
}

struct Sink {
  __m512 f = _mm512_setzero_ps();
  __m512i i = _mm512_setzero_si512();
};

#ifdef __AVX512VNNI__
// Added 2026-12-03 (vnni-values.md): the int8 V side with VPDPBUSD. The tile's probabilities
// (two heads, p[row][head]) become LIMBS (2 or 3, default 3) uint8 limbs of a fixed-point form
// against the tile's largest (16 or 24 bits), four rows' limbs to a dword; the V rows, four at a
// time, are interleaved by byte and word unpacks so that each dword of a vector holds one dim of
// four rows (the dims permuted within 128-bit lanes, which the accumulators keep), and one
// VPDPBUSD per head, limb and vector adds p . v over the four rows. int32 sums per tile (at most
// 32 x 255 x 128 per limb: exact, and limb 2 shifted by 8 onto limb 1 stays below 2^31), then
// converted and added to the float accumulators with the limbs' weights.
const bool g_fixed_max = std::getenv("FIXED_MAX") != nullptr;
const int g_limbs = std::getenv("LIMBS") != nullptr ? std::atoi(std::getenv("LIMBS")) : 3;
template <int L>
inline void vnni_values_limbs(const char* v, std::size_t tile, const float (*p)[2], float (*facc)[kChunks][16]) {
  constexpr std::size_t rb = 128;
  constexpr int kGroups = 8;  // the int8 tile: 32 rows
  alignas(64) std::uint32_t pl[2][L][kGroups];
  float weight[2][2];  // per head: the limbs' units, high part and low part
  const __m512i lo_idx = _mm512_set_epi32(30, 28, 26, 24, 22, 20, 18, 16, 14, 12, 10, 8, 6, 4, 2, 0);
  const __m512i hi_idx = _mm512_add_epi32(lo_idx, _mm512_set1_epi32(1));
  const float* pf = &p[0][0];
  __m512 ph[2][2];
  for (int half = 0; half < 2; ++half) {
    const __m512 a = _mm512_load_ps(pf + 32 * half), b = _mm512_load_ps(pf + 32 * half + 16);
    ph[0][half] = _mm512_permutex2var_ps(a, lo_idx, b);
    ph[1][half] = _mm512_permutex2var_ps(a, hi_idx, b);
  }
  constexpr float kFull = L == 3 ? 16777215.0f : 65535.0f;
  for (int h = 0; h < 2; ++h) {
    // FIXED_MAX=1: the tile's largest taken as 1 (a tile-max softmax's own largest weight, the
    // row scales' bound known before the scores), so the limbs wait for no reduction.
    const float m = g_fixed_max ? 1.0f : _mm512_reduce_max_ps(_mm512_max_ps(ph[h][0], ph[h][1]));
    const float unit = m > 0 ? m / kFull : 1.0f;
    const __m512 inv = _mm512_set1_ps(m > 0 ? kFull / m : 0.0f);
    weight[h][0] = unit * (L == 3 ? 256.0f : 1.0f);  // high part: limbs L-1 and L-2 joined
    weight[h][1] = unit;                              // low part (L = 3: limb 0)
    for (int half = 0; half < 2; ++half) {
      const __m512i q = _mm512_cvtps_epi32(_mm512_mul_ps(ph[h][half], inv));
      const __m512i byte = _mm512_set1_epi32(255);
      for (int l = 0; l < L; ++l) {
        const __m512i limb = _mm512_and_si512(_mm512_srli_epi32(q, 8 * l), byte);
        _mm_storeu_si128(reinterpret_cast<__m128i*>(&pl[h][l][4 * half]), _mm512_cvtepi32_epi8(limb));
      }
    }
  }
  (void)tile;
  // Three limbs keep half the outputs per sweep (12 int32 sums, not 24, which spilled): the unpacks of a half are its own, so only the four loads repeat (from L1).
  constexpr int kHalves = L == 3 ? 2 : 1, kOuts = 4 / kHalves;
  for (int c = 0; c < 2; ++c)  // the row's two lines
    for (int half = 0; half < kHalves; ++half) {
      __m512i ai[2][L][kOuts];
      for (auto& h : ai)
        for (auto& l : h)
          for (auto& o : l) o = _mm512_setzero_si512();
#pragma GCC unroll 2
      for (int g = 0; g < kGroups; ++g) {
        const char* r0 = v + 4 * g * rb + 64 * c;
        const __m512i x0 = _mm512_load_si512(r0), x1 = _mm512_load_si512(r0 + rb);
        const __m512i x2 = _mm512_load_si512(r0 + 2 * rb), x3 = _mm512_load_si512(r0 + 3 * rb);
        __m512i t[4];
        if (kHalves == 1 || half == 0) {
          const __m512i a = _mm512_unpacklo_epi8(x0, x1), cc = _mm512_unpacklo_epi8(x2, x3);
          t[0] = _mm512_unpacklo_epi16(a, cc);
          t[1] = _mm512_unpackhi_epi16(a, cc);
        }
        if (kHalves == 1 || half == 1) {
          const __m512i b = _mm512_unpackhi_epi8(x0, x1), d = _mm512_unpackhi_epi8(x2, x3);
          t[kOuts == 4 ? 2 : 0] = _mm512_unpacklo_epi16(b, d);
          t[kOuts == 4 ? 3 : 1] = _mm512_unpackhi_epi16(b, d);
        }
        for (int h = 0; h < 2; ++h)
          for (int l = 0; l < L; ++l) {
            const __m512i w = _mm512_set1_epi32(static_cast<int>(pl[h][l][g]));
            for (int o = 0; o < kOuts; ++o) ai[h][l][o] = _mm512_dpbusd_epi32(ai[h][l][o], w, t[o]);
          }
      }
      for (int h = 0; h < 2; ++h) {
        const __m512 wh = _mm512_set1_ps(weight[h][0]), wl = _mm512_set1_ps(weight[h][1]);
        for (int o = 0; o < kOuts; ++o) {
          float* f = facc[h][4 * c + kOuts * half + o];
          __m512i high = ai[h][L - 1][o];
          high = _mm512_add_epi32(_mm512_slli_epi32(high, 8), ai[h][L - 2][o]);
          __m512 acc = _mm512_fmadd_ps(_mm512_cvtepi32_ps(high), wh, _mm512_load_ps(f));
          if constexpr (L == 3) acc = _mm512_fmadd_ps(_mm512_cvtepi32_ps(ai[h][0][o]), wl, acc);
          _mm512_store_ps(f, acc);
        }
      }
    }
}
inline void vnni_values(const char* v, std::size_t tile, const float (*p)[2], float (*facc)[kChunks][16]) {
  if (g_limbs == 2) vnni_values_limbs<2>(v, tile, p, facc);
  else vnni_values_limbs<3>(v, tile, p, facc);
}
#endif

// One item (K rows then V rows, ctx positions each) in tiles of `tile` positions.
template <Dt T, Variant V, bool kOneLane>
void item_pass(const char* K, const char* Vr, std::size_t ctx, std::size_t tile, Sink& sink) {
  constexpr std::size_t rb = T == Dt::kF32 ? 512 : T == Dt::kI8 ? 128 : 256;
  constexpr bool window = V != Variant::kNoWindow, joint = rb <= 128, loads_only = V == Variant::kLoadsOnly;
  const __m512 q0 = _mm512_set1_ps(0.01f), q1 = _mm512_set1_ps(0.02f);
  const bool skip_k = g_skip_k, skip_v = g_skip_v;  // read once, not per row
  alignas(64) float p[256][2];
  if (skip_k)  // normal weights for the V side alone (stale stack floats can be subnormal:
    for (auto& w : p) w[0] = w[1] = 1e-3f;  // Intel cores take a microcode assist on those)
  __m512 acc[2][kChunks];
  for (auto& h : acc)
    for (auto& a : h) a = _mm512_setzero_ps();
  alignas(64) float facc[2][kChunks][16] = {};  // VNNI values: the float accumulators, permuted
  __m512i ior = _mm512_setzero_si512();
  // Query limbs for the VNNI variant: fixed small values (this loop times the access shape, not
  // the quantisation); bias_sum[h] = 128 * sum of the limb-weighted query, the XOR's correction.
  alignas(64) static __m512i qlimb[2][3][kDim / 64];
  static float bias_sum[2];
#ifdef __AVX512VNNI__
  if constexpr (V == Variant::kVnniScores || V == Variant::kVnniBoth) {
    for (int h = 0; h < 2; ++h) {
      bias_sum[h] = 0;
      for (int l = 0; l < 3; ++l)
        for (int c = 0; c < kDim / 64; ++c) {
          qlimb[h][l][c] = _mm512_set1_epi8(static_cast<char>(3 + h + 5 * l));
          bias_sum[h] += 128.0f * 64 * (3 + h + 5 * l) * (l == 2 ? 65536.0f : l == 1 ? 256.0f : 1.0f);
        }
    }
  }
#endif
  for (std::size_t t0 = 0; t0 < ctx; t0 += tile) {
    const char* k = K + t0 * rb;
    const char* v = Vr + t0 * rb;
    for (std::size_t r = 0; r < tile && !skip_k; r += 4) {
      if (window) {
        prefetch_range(k + r * rb + kWindow, 4 * rb);
        if (joint) prefetch_range(v + r * rb + kWindow, 4 * rb);
      }
      if constexpr (loads_only) {
        for (int rr = 0; rr < 4; ++rr)
          for (int c = 0; c < kChunks; c += (T == Dt::kF32 ? 1 : T == Dt::kI8 ? 4 : 2))
            ior = _mm512_or_si512(ior, raw<T>(k + (r + rr) * rb, c));
        continue;
      }
#ifdef __AVX512VNNI__
      if constexpr (V == Variant::kVnniScores || V == Variant::kVnniBoth) {
        // int8 only: the K rows biased to uint8 (XOR 0x80) against three int8 limbs of each head's
        // query (memory operands, L1): 3 VPDPBUSD per head and 64 bytes, then limbs 1 and 0 joined
        // in int32 (exact: |S1| * 256 + |S0| < 2^31), both halves converted and joined by one FMA.
        __m512i s[4][2][3];
        for (auto& x : s)
          for (auto& h : x)
            for (auto& l : h) l = _mm512_setzero_si512();
        const __m512i bias = _mm512_set1_epi8(static_cast<char>(0x80));
#pragma GCC unroll 2
        for (int c = 0; c < kDim / 64; ++c)
#pragma GCC unroll 4
          for (int rr = 0; rr < 4; ++rr) {
            const __m512i x = _mm512_xor_si512(
                _mm512_load_si512(reinterpret_cast<const __m512i*>(k + (r + rr) * rb) + c), bias);
            for (int h = 0; h < 2; ++h)
              for (int l = 0; l < 3; ++l) s[rr][h][l] = _mm512_dpbusd_epi32(s[rr][h][l], x, qlimb[h][l][c]);
          }
        for (int rr = 0; rr < 4; ++rr)
          for (int h = 0; h < 2; ++h) {
            const __m512i low = _mm512_add_epi32(_mm512_slli_epi32(s[rr][h][1], 8), s[rr][h][0]);
            const __m512 f = _mm512_fmadd_ps(_mm512_cvtepi32_ps(s[rr][h][2]), _mm512_set1_ps(65536.0f),
                                             _mm512_cvtepi32_ps(low));
            p[r + rr][h] = (lane_sum<kOneLane>(f) - bias_sum[h]) * 1e-12f;
          }
        continue;
      }
#endif
      __m512 a[4][2];
      for (auto& x : a) x[0] = x[1] = _mm512_setzero_ps();
#pragma GCC unroll 8
      for (int c = 0; c < kChunks; ++c)
#pragma GCC unroll 4
        for (int rr = 0; rr < 4; ++rr) {
          const __m512 x = chunk<T>(k + (r + rr) * rb, c);
          a[rr][0] = _mm512_fmadd_ps(x, q0, a[rr][0]);
          a[rr][1] = _mm512_fmadd_ps(x, q1, a[rr][1]);
        }
      for (int rr = 0; rr < 4; ++rr) {
        p[r + rr][0] = lane_sum<kOneLane>(a[rr][0]) * 1e-6f;
        p[r + rr][1] = lane_sum<kOneLane>(a[rr][1]) * 1e-6f;
      }
    }
    if (skip_v) continue;
#ifdef __AVX512VNNI__
    if constexpr (V == Variant::kVnniValues || V == Variant::kVnniBoth) {
      vnni_values(v, tile, p, facc);
      continue;
    }
#endif
    for (std::size_t r = 0; r < tile; ++r) {
      if (window && !joint) prefetch_range(v + r * rb + kWindow, rb);
      if constexpr (loads_only) {
        for (int c = 0; c < kChunks; c += (T == Dt::kF32 ? 1 : T == Dt::kI8 ? 4 : 2)) ior = _mm512_or_si512(ior, raw<T>(v + r * rb, c));
        continue;
      }
      const __m512 w0 = _mm512_set1_ps(p[r][0]), w1 = _mm512_set1_ps(p[r][1]);
#pragma GCC unroll 8
      for (int c = 0; c < kChunks; ++c) {
        const __m512 x = chunk<T>(v + r * rb, c);
        acc[0][c] = _mm512_fmadd_ps(x, w0, acc[0][c]);
        acc[1][c] = _mm512_fmadd_ps(x, w1, acc[1][c]);
      }
    }
  }
  for (auto& h : acc)
    for (auto& a : h) sink.f = _mm512_add_ps(sink.f, a);
  for (auto& h : facc)
    for (auto& a : h) sink.f = _mm512_add_ps(sink.f, _mm512_load_ps(a));
  sink.i = _mm512_or_si512(sink.i, ior);
}

template <Dt T, Variant V>
void items_pass(const char* buf, std::size_t item_bytes, std::size_t first, std::size_t last, std::size_t ctx, Sink& sink) {
  const std::size_t tile = V == Variant::kLongTile ? 256 : T == Dt::kI8 ? 32 : 16;
  for (std::size_t it = first; it < last; ++it) {
    const char* K = buf + 2 * item_bytes * it;
    if (g_no_reduce) item_pass<T, V, true>(K, K + item_bytes, ctx, tile, sink);
    else item_pass<T, V, false>(K, K + item_bytes, ctx, tile, sink);
  }
}

using PassFn = void (*)(const char*, std::size_t, std::size_t, std::size_t, std::size_t, Sink&);
template <Dt T>
PassFn pass_for(Variant v) {
  switch (v) {
    case Variant::kKernelTile: return items_pass<T, Variant::kKernelTile>;
    case Variant::kLongTile: return items_pass<T, Variant::kLongTile>;
    case Variant::kNoWindow: return items_pass<T, Variant::kNoWindow>;
    case Variant::kLoadsOnly: return items_pass<T, Variant::kLoadsOnly>;
#ifdef __AVX512VNNI__
    case Variant::kVnniScores: return T == Dt::kI8 ? items_pass<T, Variant::kVnniScores> : nullptr;
    case Variant::kVnniValues: return T == Dt::kI8 ? items_pass<T, Variant::kVnniValues> : nullptr;
    case Variant::kVnniBoth: return T == Dt::kI8 ? items_pass<T, Variant::kVnniBoth> : nullptr;
#else
    case Variant::kVnniValues:
    case Variant::kVnniBoth:
    case Variant::kVnniScores: return nullptr;  // built without -mavx512vnni
#endif
  }
  return nullptr;
}
PassFn pass_for(Dt t, Variant v) {
  switch (t) {
    case Dt::kF32: return pass_for<Dt::kF32>(v);
    case Dt::kF16: return pass_for<Dt::kF16>(v);
    case Dt::kBF16: return pass_for<Dt::kBF16>(v);
    case Dt::kI8: return pass_for<Dt::kI8>(v);
  }
  return nullptr;
}

std::size_t env_or(const char* name, std::size_t fallback) {
  const char* s = std::getenv(name);
  return s != nullptr ? std::strtoull(s, nullptr, 10) : fallback;
}

// DTYPES / VARIANTS (comma lists of names' first words, e.g. "int8" and "kernel,VNNI") pick rows.
bool listed(const char* env, const std::string& name) {
  const char* s = std::getenv(env);
  if (s == nullptr) return true;
  const std::string list = std::string(",") + s + ",";
  const std::string first = name.substr(0, name.find_first_of(" ,"));
  return list.find("," + first + ",") != std::string::npos || list.find("," + name + ",") != std::string::npos;
}
bool wanted(Dt t, Variant v) {
  std::string vn = variant_name(v);
  if (v == Variant::kVnniScores || v == Variant::kVnniValues || v == Variant::kVnniBoth) {  // opt-in only
    const char* s = std::getenv("VARIANTS");
    const char* name = v == Variant::kVnniScores ? "VNNI" : v == Variant::kVnniValues ? "values" : "both";
    return s != nullptr && listed("VARIANTS", name) &&
           listed("DTYPES", dt_name(t));
  }
  else if (v == Variant::kLoadsOnly) vn = "loads";
  else if (v == Variant::kNoWindow) vn = "nowindow";
  return listed("DTYPES", dt_name(t)) && listed("VARIANTS", vn);
}

}  // namespace

int main() {
  const std::size_t items = env_or("ITEMS", 224), threads = env_or("THREADS", 1), reps = env_or("REPS", 3),
                    rounds = env_or("ROUNDS", 1);
  std::vector<int> pus;
  if (const char* s = std::getenv("PUS")) {
    for (std::string rest = s; !rest.empty();) {
      const std::size_t comma = rest.find(',');
      pus.push_back(std::stoi(rest.substr(0, comma)));
      rest = comma == std::string::npos ? "" : rest.substr(comma + 1);
    }
  }
  for (std::size_t i = pus.size(); i < threads; ++i) pus.push_back(static_cast<int>(i));
  if (threads < 1 || items < threads) {
    std::fprintf(stderr, "dtype_rate: THREADS must be in [1, ITEMS]\n");
    return 2;
  }
  // 1 GiB per dtype: fp32 rows at 4608 positions (a multiple of the 256-position long tile).
  // BYTES (default that GiB) shrinks the set, e.g. to time the compute from L2.
  const std::size_t total = env_or("BYTES", 2 * items * 4608 * 512);
  char* buf = static_cast<char*>(std::aligned_alloc(1 << 21, total));
  if (buf == nullptr) {
    std::fprintf(stderr, "dtype_rate: cannot allocate %zu bytes\n", total);
    return 2;
  }
  madvise(buf, total, MADV_HUGEPAGE);
  std::memset(buf, 0x3c, total);
  Sink sink;
  for (std::size_t round = 0; round < rounds; ++round)
    for (Dt t : {Dt::kF32, Dt::kF16, Dt::kBF16, Dt::kI8})
      for (Variant v : {Variant::kKernelTile, Variant::kLongTile, Variant::kNoWindow, Variant::kLoadsOnly,
                        Variant::kVnniScores, Variant::kVnniValues, Variant::kVnniBoth}) {
        if (pass_for(t, v) == nullptr || !wanted(t, v)) continue;
        const std::size_t ctx = total / (2 * items * row_bytes(t)), item_bytes = ctx * row_bytes(t);
        const PassFn fn = pass_for(t, v);
        double best = 1e30;
        for (std::size_t rep = 0; rep < reps; ++rep) {
          std::atomic<std::size_t> ready{0};
          std::vector<double> secs(threads);
          std::vector<Sink> sinks(threads);
          std::vector<std::thread> workers;
          for (std::size_t w = 0; w < threads; ++w)
            workers.emplace_back([&, w] {
              cpu_set_t set;
              CPU_ZERO(&set);
              CPU_SET(pus[w], &set);
              pthread_setaffinity_np(pthread_self(), sizeof(set), &set);
              ready.fetch_add(1);
              while (ready.load() < threads) {
              }
              const auto s0 = std::chrono::steady_clock::now();
              fn(buf, item_bytes, items * w / threads, items * (w + 1) / threads, ctx, sinks[w]);
              secs[w] = std::chrono::duration<double>(std::chrono::steady_clock::now() - s0).count();
            });
          double slowest = 0;
          for (std::size_t w = 0; w < threads; ++w) {
            workers[w].join();
            slowest = std::max(slowest, secs[w]);
            sink.f = _mm512_add_ps(sink.f, sinks[w].f);
            sink.i = _mm512_or_si512(sink.i, sinks[w].i);
          }
          best = std::min(best, slowest);
        }
        std::printf("r%zu %zuT %s %-32s %6.1f GB/s\n", round, threads, dt_name(t), variant_name(v),
                    static_cast<double>(2 * items * item_bytes) / best / 1e9);
        std::fflush(stdout);
      }
  alignas(64) float f[16];
  _mm512_store_ps(f, sink.f);
  return f[0] == 12345.0f && _mm512_reduce_or_epi32(sink.i) == 1 ? 1 : 0;
}
