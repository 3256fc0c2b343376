// bf16 rows with VCVTNE2PS2BF16: one instruction converts two fp32 vectors (32 elements) with
// nearest-even rounding, where the integer rounding of kernels/row_encode.cc spends about four
// ops per vector and a permute per pair. The instruction differs from f32_to_bf16 only on
// subnormal inputs (it reads them as zero), so each block of up to 128 elements is classified
// first (VFPCLASSPS, one per vector) and a block holding a subnormal takes the scalar codec.
// The intrinsics come from function target attributes only, as in kernels/attention_amx.cc: the
// library still runs on CPUs without the instruction, which avx512_bf16_supported() tells
// apart at run time.
#include "kernels/row_encode_avx512bf16.h"

#include <atomic>
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

constexpr std::int32_t kPair = 32;       // elements per conversion: two fp32 vectors
constexpr std::int32_t kBlockPairs = 4;  // pairs classified before any is converted

void encode_scalar(const float* s, std::uint16_t* o, std::int32_t n) {
  for (std::int32_t j = 0; j < n; ++j) o[j] = f32_to_bf16(s[j]);
}

#if KVB_AVX512BF16_X86
#define KVB_BF16_TARGET __attribute__((target("avx512f,avx512dq,avx512bf16")))

bool detect_avx512_bf16() {
  // libgcc's and compiler-rt's checks include the OS's ZMM state (XCR0).
  __builtin_cpu_init();
  return __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512dq") &&
         __builtin_cpu_supports("avx512bf16");
}

constexpr int kSubnormalClass = 0x20;  // VFPCLASSPS imm8 bit 5: denormal

KVB_BF16_TARGET inline void put(std::uint16_t* o, __m512 hi, __m512 lo, bool nt) {
  const __m512i codes = (__m512i)_mm512_cvtne2ps_pbh(hi, lo);  // lo's codes first
  if (nt) {
    _mm512_stream_si512(reinterpret_cast<__m512i*>(o), codes);
  } else {
    _mm512_storeu_si512(o, codes);
  }
}

KVB_BF16_TARGET __attribute__((noinline)) void encode_rows(
    const float* src, std::int64_t src_stride, std::uint16_t* dst, std::int64_t dst_stride,
    std::int64_t rows, std::int32_t done, bool stream, std::int64_t prefetch_ahead) {
  constexpr std::int32_t kBlock = kPair * kBlockPairs;
  for (std::int64_t r = 0; r < rows; ++r) {
    const float* s = src + r * src_stride;
    std::uint16_t* o = dst + r * dst_stride;
    if (prefetch_ahead > 0 && r + prefetch_ahead < rows) {
      const float* ahead = src + (r + prefetch_ahead) * src_stride;
      for (std::int32_t j = 0; j < done; j += 16) _mm_prefetch(reinterpret_cast<const char*>(ahead + j), _MM_HINT_T0);
    }
    const bool nt = stream && reinterpret_cast<std::uintptr_t>(o) % 64 == 0;
    std::int32_t j = 0;
    for (; j + kBlock <= done; j += kBlock) {
      __m512 x[2 * kBlockPairs];
      __mmask16 subnormal = 0;
      for (int i = 0; i < 2 * kBlockPairs; ++i) {
        x[i] = _mm512_loadu_ps(s + j + 16 * i);
        subnormal |= _mm512_fpclass_ps_mask(x[i], kSubnormalClass);
      }
      if (subnormal != 0) {
        encode_scalar(s + j, o + j, kBlock);
        continue;
      }
      for (int i = 0; i < kBlockPairs; ++i) put(o + j + kPair * i, x[2 * i + 1], x[2 * i], nt);
    }
    for (; j < done; j += kPair) {
      const __m512 lo = _mm512_loadu_ps(s + j), hi = _mm512_loadu_ps(s + j + 16);
      if ((_mm512_fpclass_ps_mask(lo, kSubnormalClass) | _mm512_fpclass_ps_mask(hi, kSubnormalClass)) != 0) {
        encode_scalar(s + j, o + j, kPair);
      } else {
        put(o + j, hi, lo, nt);
      }
    }
  }
}
#else
bool detect_avx512_bf16() { return false; }
void encode_rows(const float*, std::int64_t, std::uint16_t*, std::int64_t, std::int64_t,
                 std::int32_t, bool, std::int64_t) {}
#endif

std::once_flag g_select_once;
bool g_supported = false;
std::atomic<bool> g_enabled{false};

void select_once() {
  std::call_once(g_select_once, [] {
    g_supported = detect_avx512_bf16();
    bool on = true;
    if (const char* env = std::getenv("KVBENCH_AVX512_BF16"); env != nullptr && env[0] != '\0')
      on = std::strcmp(env, "0") != 0;
    g_enabled.store(g_supported && on, std::memory_order_relaxed);
  });
}

}  // namespace

bool avx512_bf16_supported() noexcept {
  select_once();
  return g_supported;
}

bool avx512_bf16_enabled() noexcept {
  select_once();
  return g_enabled.load(std::memory_order_relaxed);
}

bool set_avx512_bf16_enabled(bool on) noexcept {
  select_once();
  g_enabled.store(g_supported && on, std::memory_order_relaxed);
  return avx512_bf16_enabled();
}

std::int32_t encode_bf16_rows_avx512(const float* src, std::int64_t src_stride, std::uint16_t* dst,
                                     std::int64_t dst_stride, std::int64_t rows, std::int32_t d,
                                     bool stream, std::int64_t prefetch_ahead) noexcept {
  const std::int32_t done = d - d % kPair;
  if (done == 0 || !avx512_bf16_enabled()) return 0;
  encode_rows(src, src_stride, dst, dst_stride, rows, done, stream, prefetch_ahead);
  return done;
}

}  // namespace kvb::detail
