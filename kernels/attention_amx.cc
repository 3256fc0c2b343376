// AMX-INT8 scores for int8 decode attention. A = 16 K rows x 64 bytes straight from the cache
// (row stride), B = one limb of the query (VNNI tile from kernels/query_limbs.h), C = 16 positions
// x heads int32, one C tile per limb: per 64 dims one A load, three B loads (L1-resident) and three
// TDPBSSD. The three int32 sums are exact; their fp32 combination rounds like an fp32 dot product.
//
// Tile registers: tmm0-2 C (limbs 0, 1, 2), tmm3 A, tmm4-6 B (limbs 0, 1, 2).
// The intrinsics come from function target attributes only: the library still runs on CPUs
// without AMX, which amx_int8_supported() tells apart at run time. The same sequence also runs
// on AmxTileEmulator (set_amx_int8_emulated, tests) so CPUs without AMX test the data flow.
//
// Status (2026-11-23): written and tested through the emulator on a 2-vCPU AMD EPYC guest without
// AMX, then run on the 16-vCPU Emerald Rapids host (AMX-TILE/INT8, arch_prctl permission granted):
// every kernels_test case passed there, the real-AMX ones included. Timed there, KVBENCH_AMX=0 / 1
// alternating, two rounds, medians: int8 decode_step, Qwen3-0.6B, 21278 tokens (G = 2), % of the
// bracketed DRAM read ceiling, 1 thread FMA 58-62 / AMX 37, 16 threads 41-56 / 22-23; attention,
// 16384 tokens, 8 KV heads, 1 thread: G = 1 112-116 ms FMA / 187-194 ms AMX, G = 8 286-304 /
// 249-275 ms. Scores on AMX win a little at G = 8 and lose badly at small G: per 16-row tile the C
// tiles go through memory and are recombined, and every call converts q and clears its scratch,
// which the FMA path's few uops per row do not. So the path stays OFF by default
// (kAmxInt8ByDefault); it needs the V side on AMX too and 64-row tiles before it can pay off.
// Timed again on 2026-12-06 with the FMA path's later int8 changes (results/xeon-emr-16c-kvm/
// amx-gqa/, attention at 16384 positions, 6 alternating rounds): AMX over FMA 1.78x the time at
// G = 2, 1.04x at G = 4 and 0.87x at G = 8 (not significant) at 1 thread; 1.42-1.73x at every G
// at 16 threads. Still off, G = 8 included.
// What could be measured here is that the hook costs the FMA path nothing: main vs this code,
// alternating, two rounds, medians (AMD EPYC 2-vCPU guest, AVX2): int8 decode_step at 35747
// tokens, % of the bracketed DRAM read ceiling, 1 / 2 threads: main 47-50 / 47-52, here 51-53 /
// 48; GQA attention 16384 tokens, G8/G1 ns per step: main 4.88, 4.69; here 5.92 (one slow
// G8 round), 4.78.
// Expected on the Xeon, not measured: per 16 positions at head_dim 128, the scores take 6
// TDPBSSD (about 16 cycles each at best) and 3G gathers instead of 128 G 16-lane FMAs (1024 at
// G = 8); the V side keeps its 128 G FMAs, so G8/G1 should improve but not reach 1.10 without
// step 2 (V on AMX, not attempted).

#include "kernels/attention_amx.h"

#include <atomic>
#include <cstdlib>
#include <cstring>
#include <mutex>

#include "kernels/amx_tile_emulator.h"

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#define KVB_AMX_X86 1
#include <cpuid.h>
#include <immintrin.h>
#if defined(__linux__)
#include <sys/syscall.h>
#include <unistd.h>
#endif
#else
#define KVB_AMX_X86 0
#endif

namespace kvb::detail {
namespace {

// Off: measured slower than the FMA path at G <= 2, and at 16 threads at every G, on an AMX
// machine (status note above).
constexpr bool kAmxInt8ByDefault = false;

constexpr int kTileRows = 16;

void write_tile_config(std::uint8_t* cfg, std::int32_t heads) {
  std::memset(cfg, 0, 64);
  cfg[0] = 1;  // palette 1; start_row 0
  const auto set = [cfg](int tile, std::uint16_t colsb, std::uint8_t rows) {
    std::memcpy(cfg + 16 + 2 * tile, &colsb, 2);  // colsb[16] at byte 16
    cfg[48 + tile] = rows;                        // rows[16] at byte 48
  };
  const auto head_bytes = static_cast<std::uint16_t>(heads * 4);
  for (int t = 0; t < 3; ++t) set(t, head_bytes, kTileRows);  // C: 16 positions x heads int32
  set(3, 64, kTileRows);                                      // A: 16 positions x 64 dims
  for (int t = 4; t < 7; ++t) set(t, head_bytes, kTileRows);  // B: 16 dim quads x heads x 4
}

// The K rows of a tile as TILELOADD reads them: a partial tile (rows < 16) must not read past
// its last row, so it is copied into zeroed rows of `tail` (16 x head_dim bytes).
const std::int8_t* tile_rows(const std::int8_t* k, std::int64_t* stride_bytes, std::int64_t rows,
                             std::int32_t chunks, std::int8_t* tail) {
  if (rows >= kTileRows) return k;
  const std::int64_t d = std::int64_t{chunks} * kLimbChunkDims;
  std::memset(tail, 0, static_cast<std::size_t>(kTileRows * d));
  for (std::int64_t r = 0; r < rows; ++r)
    std::memcpy(tail + r * d, k + r * *stride_bytes, static_cast<std::size_t>(d));
  *stride_bytes = d;
  return tail;
}

// ---- The hardware path.
#if KVB_AMX_X86
// Every AMX CPU has AVX-512 (detect_amx_int8 checks it anyway); the scores are combined with it.
#define KVB_AMX_TARGET __attribute__((target("amx-tile,amx-int8,avx512f")))

bool detect_amx_int8() {
  unsigned a = 0, b = 0, c = 0, d = 0;
  if (__get_cpuid(1, &a, &b, &c, &d) == 0 || (c & bit_OSXSAVE) == 0) return false;
  if (__get_cpuid_max(0, nullptr) < 7) return false;
  __cpuid_count(7, 0, a, b, c, d);
  constexpr unsigned kAmxTile = 1u << 24, kAmxInt8 = 1u << 25;  // CPUID.(7,0):EDX
  constexpr unsigned kAvx512F = 1u << 16;                      // CPUID.(7,0):EBX
  if ((d & kAmxTile) == 0 || (d & kAmxInt8) == 0 || (b & kAvx512F) == 0) return false;
  unsigned xcr0_lo = 0, xcr0_hi = 0;
  __asm__ volatile("xgetbv" : "=a"(xcr0_lo), "=d"(xcr0_hi) : "c"(0));
  // SSE, AVX, opmask, ZMM_Hi256, Hi16_ZMM, XTILECFG, XTILEDATA
  constexpr unsigned kOsState = 0x6u | 0xE0u | (1u << 17) | (1u << 18);
  if ((xcr0_lo & kOsState) != kOsState) return false;
#if defined(__linux__)
  // Linux hands out the 8 KB of tile data per process on request (kernel 5.16+).
  constexpr long kArchReqXcompPerm = 0x1023;
  constexpr long kXfeatureXtiledata = 18;
  return syscall(SYS_arch_prctl, kArchReqXcompPerm, kXfeatureXtiledata) == 0;
#else
  return false;
#endif
}

// Out of line: only code reached after the run-time check may hold AMX or AVX-512 instructions.
KVB_AMX_TARGET __attribute__((noinline)) void load_tile_config(const std::uint8_t* config) {
  __asm__ volatile("" ::: "memory");  // _tile_loadconfig's asm names only 8 of the 64 bytes
  _tile_loadconfig(config);
}

KVB_AMX_TARGET __attribute__((noinline)) void release_tiles() { _tile_release(); }

// 16 int32 at first + offsets[i] (in elements), as floats. The masked forms with explicit zero
// sources: GCC 12's plain forms warn about their undefined source operand.
KVB_AMX_TARGET inline __m512 gather_column(__m512i offsets, const std::int32_t* first) {
  const __m512i c =
      _mm512_mask_i32gather_epi32(_mm512_setzero_si512(), 0xFFFF, offsets, first, 4);
  return _mm512_maskz_cvtepi32_ps(0xFFFF, c);
}

KVB_AMX_TARGET __attribute__((noinline)) void score_tile_amx(
    const AmxInt8Scorer& s, const std::int8_t* k, std::int64_t stride_bytes, std::int64_t rows,
    const float* kscale, float* s_out) {
  alignas(64) std::int8_t tail[kTileRows * kLimbMaxChunks * kLimbChunkDims];
  k = tile_rows(k, &stride_bytes, rows, s.limbs.chunks, tail);
  __asm__ volatile("" ::: "memory");  // the tile loads' asm does not name the memory it reads
  _tile_zero(0);
  _tile_zero(1);
  _tile_zero(2);
  for (std::int32_t c = 0; c < s.limbs.chunks; ++c) {
    _tile_loadd(3, k + c * kLimbChunkDims, stride_bytes);
    _tile_loadd(4, s.limbs.tiles[0][c], 64);
    _tile_loadd(5, s.limbs.tiles[1][c], 64);
    _tile_loadd(6, s.limbs.tiles[2][c], 64);
    _tile_dpbssd(0, 3, 4);
    _tile_dpbssd(1, 3, 5);
    _tile_dpbssd(2, 3, 6);
  }
  alignas(64) std::int32_t sums[kQueryLimbs][kTileRows][kLimbTileHeads];
  _tile_stored(0, sums[0], 64);
  _tile_stored(1, sums[1], 64);
  _tile_stored(2, sums[2], 64);
  // sums are [position][head]; s_out is [head][position]: one gather per limb and head reads a
  // column (16 positions). Same arithmetic as combine_limb_sums: S2 * 256 + S1 rounded, times 256
  // (exact) plus S0 rounded, then times kscale[r] * scale * u_g.
  const auto valid = static_cast<__mmask16>((1u << rows) - 1u);
  const __m512 row_scale = _mm512_maskz_loadu_ps(valid, kscale);
  const __m512i column = _mm512_mullo_epi32(
      _mm512_set_epi32(15, 14, 13, 12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0),
      _mm512_set1_epi32(kLimbTileHeads));
  const __m512 k256 = _mm512_set1_ps(256.0f);
  for (std::int32_t g = 0; g < s.limbs.heads; ++g) {
    const __m512 s2 = gather_column(column, &sums[2][0][g]);
    const __m512 s1 = gather_column(column, &sums[1][0][g]);
    const __m512 s0 = gather_column(column, &sums[0][0][g]);
    const __m512 dot = _mm512_fmadd_ps(_mm512_fmadd_ps(s2, k256, s1), k256, s0);
    const __m512 factor = _mm512_mul_ps(row_scale, _mm512_set1_ps(s.head_factor[g]));
    _mm512_mask_storeu_ps(s_out + g * kTileRows, valid, _mm512_mul_ps(dot, factor));
  }
}
#else
bool detect_amx_int8() { return false; }
void load_tile_config(const std::uint8_t*) {}
void release_tiles() {}
void score_tile_amx(const AmxInt8Scorer&, const std::int8_t*, std::int64_t, std::int64_t,
                    const float*, float*) {}
#endif

// ---- The same sequence on the emulator, with the scalar combination.
void score_tile_emulated(const AmxInt8Scorer& s, const std::int8_t* k, std::int64_t stride_bytes,
                         std::int64_t rows, const float* kscale, float* s_out) {
  alignas(64) std::int8_t tail[kTileRows * kLimbMaxChunks * kLimbChunkDims];
  k = tile_rows(k, &stride_bytes, rows, s.limbs.chunks, tail);
  AmxTileEmulator t;
  t.load_config(s.tile_config);
  for (int limb = 0; limb < kQueryLimbs; ++limb) t.zero(limb);
  for (std::int32_t c = 0; c < s.limbs.chunks; ++c) {
    t.load(3, k + c * kLimbChunkDims, stride_bytes);
    for (int limb = 0; limb < kQueryLimbs; ++limb) t.load(4 + limb, s.limbs.tiles[limb][c], 64);
    for (int limb = 0; limb < kQueryLimbs; ++limb) t.dpbssd(limb, 3, 4 + limb);
  }
  std::int32_t sums[kQueryLimbs][kTileRows][kLimbTileHeads] = {};
  for (int limb = 0; limb < kQueryLimbs; ++limb) t.store(limb, sums[limb], 64);
  if (t.faulted()) std::abort();  // the hardware would fault too: a bug in this file, not data
  for (std::int32_t g = 0; g < s.limbs.heads; ++g)
    for (std::int64_t r = 0; r < rows; ++r)
      s_out[g * kTileRows + r] = combine_limb_sums(sums[2][r][g], sums[1][r][g], sums[0][r][g]) *
                                 (kscale[r] * s.head_factor[g]);
}

// ---- Selection, once per process (KVBENCH_AMX), overridable by tests.
enum class Mode { kOff, kHardware, kEmulated };

std::once_flag g_select_once;
bool g_supported = false;
std::atomic<Mode> g_mode{Mode::kOff};

void select_once() {
  std::call_once(g_select_once, [] {
    g_supported = detect_amx_int8();
    bool on = kAmxInt8ByDefault;
    if (const char* env = std::getenv("KVBENCH_AMX"); env != nullptr && env[0] != '\0')
      on = std::strcmp(env, "0") != 0;
    g_mode.store(g_supported && on ? Mode::kHardware : Mode::kOff, std::memory_order_relaxed);
  });
}

Mode mode() {
  select_once();
  return g_mode.load(std::memory_order_relaxed);
}

}  // namespace

bool amx_int8_supported() noexcept {
  select_once();
  return g_supported;
}

bool amx_int8_enabled() noexcept { return mode() == Mode::kHardware; }

bool set_amx_int8_enabled(bool on) noexcept {
  select_once();
  g_mode.store(g_supported && on ? Mode::kHardware : Mode::kOff, std::memory_order_relaxed);
  return amx_int8_enabled();
}

void set_amx_int8_emulated(bool on) noexcept {
  select_once();
  g_mode.store(on ? Mode::kEmulated : Mode::kOff, std::memory_order_relaxed);
}

bool amx_int8_begin(AmxInt8Scorer& s, const float* q, std::int32_t heads, std::int32_t head_dim,
                    float scale) noexcept {
  const Mode m = mode();
  if (m == Mode::kOff || !quantise_query_limbs(q, heads, head_dim, s.limbs)) return false;
  for (std::int32_t g = 0; g < kLimbTileHeads; ++g)
    s.head_factor[g] = static_cast<float>(static_cast<double>(scale) * s.limbs.unit[g]);
  write_tile_config(s.tile_config, heads);
  s.emulated = m == Mode::kEmulated;
  if (!s.emulated) load_tile_config(s.tile_config);
  return true;
}

void amx_int8_end(const AmxInt8Scorer& s) noexcept {
  if (!s.emulated) release_tiles();
}

void amx_int8_score_tile(const AmxInt8Scorer& s, const std::int8_t* k, std::int64_t stride_bytes,
                         std::int64_t rows, const float* kscale, float* s_out) noexcept {
  if (s.emulated)
    score_tile_emulated(s, k, stride_bytes, rows, kscale, s_out);
  else
    score_tile_amx(s, k, stride_bytes, rows, kscale, s_out);
}

}  // namespace kvb::detail
