// bf16 rows with VCVTNE2PS2BF16: one instruction converts two fp32 vectors (32 elements) with
// nearest-even rounding and quiet NaNs as f32_to_bf16 does, where the integer rounding of
// kernels/row_encode.cc spends about four ops per vector and a permute per pair. It differs from
// f32_to_bf16 only on subnormal inputs, which it reads as zero: their codes come out +-0. So the
// codes of a call are folded into one minimum of (code << 1), which is 0 only for a +-0 code, and
// a call that has one writes its pairs holding a subnormal input again through the scalar codec.
// A test per pair instead (VFPCLASSPS on the inputs, or a test of the codes and a branch) held the
// append at the integer rounding's time or worse: 2.0x it on the EMR host at 4096 positions.
// It serves calls of 2 to 31 rows, and a token's K and V rows: the EMR host's Qwen3-0.6B append
// took 0.59-0.63x the integer rounding's time at 1 thread and 0.75-0.83x at 16, while on the
// 2-vCPU EMR guest one-row calls took 1.04-1.29x and bulk prefill rows 0.93-1.16x
// (results/xeon-emr-16c-kvm/session-2026-12-01b/). So a token's K and V rows make one call with
// one check for both (encode_bf16_token_avx512), which append_token makes itself: an append of one
// KV head took 0.565x main's time on the Zen 5 guest (8 rounds) and 0.66x on the EMR host at 1
// thread (6 rounds; results/*/bf16-token/). A streaming append's rows take it too, with
// non-temporal stores: there the stores set the time, and on the EMR host it matched the integer
// rounding's streaming path (append_streaming bf16 0.78-1.08x, 1 and 16 threads, 5 rounds, none
// significant; results/xeon-emr-16c-kvm/append-streaming/bf16-converter-ab/).
// The intrinsics come from function target attributes only, as in kernels/attention_amx.cc: the
// library still runs on CPUs without the instruction, which avx512_bf16_supported() tells
// apart at run time.
#include "kernels/row_encode_avx512bf16.h"

#include <atomic>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <mutex>

#include "kernels/codecs.h"

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#define KVB_AVX512BF16_X86 1
#include <immintrin.h>
#else
#define KVB_AVX512BF16_X86 0
#endif

namespace kvb::detail {
namespace {

constexpr std::int32_t kPair = 32;  // elements per conversion: two fp32 vectors

struct RowSet {  // rows read from src and written to dst, with the call's strides
  const float* src;
  std::uint16_t* dst;
};

#if KVB_AVX512BF16_X86
#define KVB_BF16_TARGET __attribute__((target("avx512f,avx512dq,avx512bw,avx512bf16")))

bool detect_avx512_bf16() {
  // libgcc's and compiler-rt's checks include the OS's ZMM state (XCR0).
  __builtin_cpu_init();
  return __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512dq") &&
         __builtin_cpu_supports("avx512bw") && __builtin_cpu_supports("avx512bf16");
}

constexpr int kSubnormalClass = 0x20;  // VFPCLASSPS imm8 bit 5: denormal

// The pairs of rows [0, rows) that hold a subnormal input, again through the scalar codec. Out of
// line: the converting loop stays free of calls.
KVB_BF16_TARGET __attribute__((noinline)) void rewrite_subnormal_pairs(
    const float* src, std::int64_t src_stride, std::uint16_t* dst, std::int64_t dst_stride,
    std::int64_t rows, std::int32_t done) {
  for (std::int64_t r = 0; r < rows; ++r) {
    const float* s = src + r * src_stride;
    std::uint16_t* o = dst + r * dst_stride;
    for (std::int32_t j = 0; j < done; j += kPair) {
      const __mmask16 subnormal = _mm512_fpclass_ps_mask(_mm512_loadu_ps(s + j), kSubnormalClass) |
                                  _mm512_fpclass_ps_mask(_mm512_loadu_ps(s + j + 16), kSubnormalClass);
      if (subnormal == 0) continue;
      for (std::int32_t e = 0; e < kPair; ++e) o[j + e] = f32_to_bf16(s[j + e]);
    }
  }
}

// One set of rows [0, rows): converts and stores every pair, folding (code << 1) into `low`, whose
// minimum is 0 if any code is +-0. kStream: rows starting on a 64-byte line store with VMOVNTDQ (a
// pair is one line), the others cached.
template <bool kStream>
KVB_BF16_TARGET inline void convert_rows(const float* src, std::int64_t src_stride, std::uint16_t* dst,
                                         std::int64_t dst_stride, std::int64_t rows, std::int32_t done,
                                         __m512i& low) {
  for (std::int64_t r = 0; r < rows; ++r) {
    const float* s = src + r * src_stride;
    std::uint16_t* o = dst + r * dst_stride;
    const bool nt = kStream && (reinterpret_cast<std::uintptr_t>(o) & 63) == 0;
    for (std::int32_t j = 0; j < done; j += kPair) {
      const __m512i codes = (__m512i)_mm512_cvtne2ps_pbh(_mm512_loadu_ps(s + j + 16), _mm512_loadu_ps(s + j));
      if (nt)
        _mm512_stream_si512(reinterpret_cast<__m512i*>(o + j), codes);
      else
        _mm512_storeu_si512(o + j, codes);
      low = _mm512_min_epu16(low, _mm512_slli_epi16(codes, 1));
    }
  }
}

// A token's cached rows of one set at a head_dim known at compile time, so the pairs unroll and
// nothing but the rows count stays a loop. Returns whether a code is +-0 (then the caller writes
// the pairs holding a subnormal input again). Out of line, one call per set, called straight from
// encode_bf16_token_avx512: one more frame between them, taking each set's fold vector back,
// held one KV head's append at fresh slots at 2.7x its memcpy (1.3x this way; Zen 5 guest,
// results/epyc-zen5-2c-kvm-508m/bf16-token-unrolled/).
template <std::int32_t kD>
KVB_BF16_TARGET __attribute__((noinline)) bool convert_token_rows(const float* src, std::uint16_t* dst,
                                                                  std::int64_t dst_stride, std::int64_t rows) {
  __m512i low = _mm512_set1_epi16(-1);
  for (std::int64_t r = 0; r < rows; ++r, src += kD, dst += dst_stride) {
#pragma GCC unroll 8
    for (std::int32_t j = 0; j < kD; j += kPair) {
      const __m512i codes = (__m512i)_mm512_cvtne2ps_pbh(_mm512_loadu_ps(src + j + 16), _mm512_loadu_ps(src + j));
      _mm512_storeu_si512(dst + j, codes);
      low = _mm512_min_epu16(low, _mm512_slli_epi16(codes, 1));
    }
  }
  return _mm512_testn_epi16_mask(low, low) != 0;
}

// `sets` sets of rows (one, or a token's K and V), converted with one check for +-0 codes at the
// end; where there is one, the pairs holding a subnormal input are written again. The rewrite's
// cached stores come after a fence, so they land after streamed lines.
template <bool kStream>
KVB_BF16_TARGET __attribute__((noinline)) void encode_sets(const RowSet* sets, int n_sets, std::int64_t src_stride,
                                                           std::int64_t dst_stride, std::int64_t rows,
                                                           std::int32_t done) {
  __m512i low = _mm512_set1_epi16(-1);
  for (int i = 0; i < n_sets; ++i) convert_rows<kStream>(sets[i].src, src_stride, sets[i].dst, dst_stride, rows, done, low);
  if (_mm512_testn_epi16_mask(low, low) != 0) {
    if (kStream) _mm_sfence();
    for (int i = 0; i < n_sets; ++i) rewrite_subnormal_pairs(sets[i].src, src_stride, sets[i].dst, dst_stride, rows, done);
  }
}
#else
bool detect_avx512_bf16() { return false; }
template <bool kStream>
void encode_sets(const RowSet*, int, std::int64_t, std::int64_t, std::int64_t, std::int32_t) {}
#endif

std::once_flag g_select_once;
bool g_supported = false;
// -1 until the first call decides, then 0 (off) or 1 (on): one load per encoder call after that.
std::atomic<int> g_state{-1};

void select_once() {
  std::call_once(g_select_once, [] {
    g_supported = detect_avx512_bf16();
    bool on = true;
    if (const char* env = std::getenv("KVBENCH_AVX512_BF16"); env != nullptr && env[0] != '\0')
      on = std::strcmp(env, "0") != 0;
    g_state.store(g_supported && on ? 1 : 0, std::memory_order_relaxed);
  });
}

// Out of line so that avx512_bf16_enabled(), one load after the first call, inlines into the
// encoders.
__attribute__((noinline)) int decide_state() {
  select_once();
  return g_state.load(std::memory_order_relaxed);
}

}  // namespace

bool avx512_bf16_supported() noexcept {
  select_once();
  return g_supported;
}

bool avx512_bf16_enabled() noexcept {
  const int state = g_state.load(std::memory_order_relaxed);
  return (state < 0 ? decide_state() : state) == 1;
}

bool set_avx512_bf16_enabled(bool on) noexcept {
  select_once();
  g_state.store(g_supported && on ? 1 : 0, std::memory_order_relaxed);
  return avx512_bf16_enabled();
}

namespace {

// Both entry points: `sets` of `rows` rows each, elements [0, d - d % 32), or 0 where not served.
std::int32_t encode_row_sets(const RowSet* sets, int n_sets, std::int64_t src_stride, std::int64_t dst_stride,
                             std::int64_t rows, std::int32_t d, bool stream) {
  const std::int32_t done = d - d % kPair;
  if (done == 0 || !avx512_bf16_enabled()) return 0;
  if (stream)
    encode_sets<true>(sets, n_sets, src_stride, dst_stride, rows, done);
  else
    encode_sets<false>(sets, n_sets, src_stride, dst_stride, rows, done);
  return done;
}

}  // namespace

std::int32_t encode_bf16_rows_avx512(const float* src, std::int64_t src_stride, std::uint16_t* dst,
                                     std::int64_t dst_stride, std::int64_t rows,
                                     std::int32_t d, bool stream) noexcept {
  if (rows < kMinRows || rows > kMaxRows) return 0;
  const RowSet set{src, dst};
  return encode_row_sets(&set, 1, src_stride, dst_stride, rows, d, stream);
}

std::int32_t encode_bf16_token_avx512(const float* k_src, std::uint16_t* k_dst, const float* v_src,
                                      std::uint16_t* v_dst, std::int64_t dst_stride, std::int64_t rows,
                                      std::int32_t d, bool stream) noexcept {
  if (rows < 1 || rows > kMaxRows) return 0;
#if KVB_AVX512BF16_X86
  // The model head dims, unrolled, picked by a conditional rather than a lambda over them: see the
  // fp16 token encoder in kernels/row_encode.cc for what a lambda's captures cost these
  // store-heavy calls.
  if (!stream && (d == 64 || d == 128 || d == 256) && avx512_bf16_enabled()) {
    // Both sets always convert (`|`, not `||`).
    const bool zero =
        d == 64    ? convert_token_rows<64>(k_src, k_dst, dst_stride, rows) |
                         convert_token_rows<64>(v_src, v_dst, dst_stride, rows)
        : d == 128 ? convert_token_rows<128>(k_src, k_dst, dst_stride, rows) |
                         convert_token_rows<128>(v_src, v_dst, dst_stride, rows)
                   : convert_token_rows<256>(k_src, k_dst, dst_stride, rows) |
                         convert_token_rows<256>(v_src, v_dst, dst_stride, rows);
    if (zero) {
      rewrite_subnormal_pairs(k_src, d, k_dst, dst_stride, rows, d);
      rewrite_subnormal_pairs(v_src, d, v_dst, dst_stride, rows, d);
    }
    return d;
  }
#endif
  const RowSet sets[2] = {{k_src, k_dst}, {v_src, v_dst}};
  return encode_row_sets(sets, 2, d, dst_stride, rows, d, stream);
}

}  // namespace kvb::detail
