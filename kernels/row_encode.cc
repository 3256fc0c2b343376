// SIMD row encoders. fp16 uses the hardware converter only where it rounds exactly like
// f32_to_f16 (x86 F16C / AVX-512: round to nearest even, subnormals kept, quiet NaN with the top
// payload bits); bf16 rounds with integer arithmetic (on AVX2, appends half up with one check per
// call for ties and NaNs), or with VCVTNE2PS2BF16 where an AVX-512 CPU has AVX512-BF16
// (kernels/row_encode_avx512bf16.h); int8 rounds the exact product of each
// element and the row scale's reciprocal to nearest even (one FMA), exactly as encode_int8_row
// does; targets without FMA use encode_int8_row. Remaining elements use the scalar codecs.
// int4 quantises like int8 and packs lane pairs into nibbles; fp8 rounds the fp32 bits with
// integer arithmetic (hardware rounding for the subnormal range).
#include "kernels/row_encode.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>

#include "kernels/codecs.h"
#include "kernels/row_encode_avx512bf16.h"
#include "kernels/slot_prefetch.h"

#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "kernels/row_encode.cc"
#include "hwy/foreach_target.h"  // IWYU pragma: keep
#include "hwy/highway.h"
#include "kernels/lane_reduce-inl.h"
#include "hwy/cache_control.h"

HWY_BEFORE_NAMESPACE();
namespace kvb {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

#undef KVB_VECTOR_F16
#if HWY_TARGET == HWY_AVX2 || HWY_TARGET == HWY_AVX3 || HWY_TARGET == HWY_AVX3_DL
#define KVB_VECTOR_F16 1
#else
#define KVB_VECTOR_F16 0
#endif

template <class D, typename T>
HWY_INLINE void Put(D d, hn::Vec<D> v, T* p, bool stream) {
  if (stream) {
    hn::Stream(v, d, p);
  } else {
    hn::StoreU(v, d, p);
  }
}

// Whether Put may stream v to p: p aligned to the vector, and the vector at least 16 bytes. On
// x86 Highway 1.0.3 streams a partial vector (8 int8 codes on AVX2) with a 16-byte MOVNTDQ,
// which faults at an 8-byte-aligned address (and writes past the codes at a 16-byte one): seen
// as a SIGSEGV in CacheWriteEncoding.WideRowsAndManyHeads on a CPU dispatching to AVX2.
template <class D>
HWY_INLINE bool Aligned(D d, const void* p) {
  const std::size_t bytes = hn::Lanes(d) * sizeof(hn::TFromD<D>);
  return bytes >= 16 && reinterpret_cast<std::uintptr_t>(p) % bytes == 0;
}

// Nearest-even integer of q for |q| < 2^22 (q already clamped): adding 1.5 * 2^23 makes the FPU
// round q to an integer in the default rounding mode, as std::nearbyint does, and leaves it in
// the low mantissa bits. Two ops instead of NearestInt's conversion and overflow fix-ups.
template <class DF>
HWY_INLINE hn::Vec<hn::RebindToSigned<DF>> RoundSmall(DF df, hn::Vec<DF> q) {
  const hn::RebindToSigned<DF> di;
  const auto magic = hn::Set(df, 12582912.0f);  // 1.5 * 2^23, bits 0x4B400000
  return hn::Sub(hn::BitCast(di, hn::Add(q, magic)), hn::BitCast(di, magic));
}

#if HWY_NATIVE_FMA
// Nearest-even integer of the exact product x * inv, |x * inv| < 2^22: one FMA adds RoundSmall's
// magic to the product and rounds once, as encode_int8_row rounds it.
template <class DF>
HWY_INLINE hn::Vec<hn::RebindToSigned<DF>> RoundProduct(DF df, hn::Vec<DF> x, hn::Vec<DF> inv) {
  const hn::RebindToSigned<DF> di;
  const auto magic = hn::Set(df, 12582912.0f);  // 1.5 * 2^23
  return hn::Sub(hn::BitCast(di, hn::MulAdd(x, inv, magic)), hn::BitCast(di, magic));
}
#endif

// x / scale as the scalar codecs quantise a row (row_quotient): x * inv, or a division where
// 1 / scale overflows (row_divides: a subnormal scale). Built once per row.
template <class D>
struct RowQuotient {
  RowQuotient(D d, float scale, float inv)
      : divide(row_divides(inv)), vscale(hn::Set(d, scale)), vinv(hn::Set(d, inv)) {}
  HWY_INLINE hn::Vec<D> operator()(hn::Vec<D> x) const {
    return divide ? hn::Div(x, vscale) : hn::Mul(x, vinv);
  }
  bool divide;
  hn::Vec<D> vscale, vinv;
};

#if HWY_TARGET != HWY_SCALAR
// Four i32 vectors whose values fit 8 bits, as one full vector of 8-bit lanes in lane order:
// one full-width store instead of four quarter-width ones (a cache-missing store holds up the
// store buffer, so fewer stores let more rows' encoding overlap the misses) and fewer shuffles.
// The pairwise packs interleave lanes in a target-specific way; the permutation that restores
// lane order is probed once per target (4-byte groups stay together, checked).
template <typename T8>
class Pack4 {
 public:
  Pack4() {
    const std::int64_t N = static_cast<std::int64_t>(hn::Lanes(di32_));
    if (4 * N > 64) return;
    const auto iota = hn::Iota(di32_, 0);
    HWY_ALIGN T8 bytes[4 * hn::MaxLanes(di32_)];
    hn::Store(Raw(iota, hn::Add(iota, hn::Set(di32_, static_cast<std::int32_t>(N))),
                  hn::Add(iota, hn::Set(di32_, static_cast<std::int32_t>(2 * N))),
                  hn::Add(iota, hn::Set(di32_, static_cast<std::int32_t>(3 * N)))),
              d8_, bytes);
    for (std::int64_t p = 0; p < N; ++p) {
      std::int64_t found = -1;
      for (std::int64_t q = 0; q < N && found < 0; ++q) {
        bool group = true;
        for (int i = 0; i < 4; ++i) group &= bytes[4 * q + i] == static_cast<T8>(4 * p + i);
        if (group) found = q;
      }
      if (found < 0) return;
      table_[p] = static_cast<std::int32_t>(found);
    }
    usable_ = true;
  }
  bool usable() const { return usable_; }
  using D8 = hn::Twice<hn::Rebind<T8, hn::Repartition<std::int16_t, hn::ScalableTag<std::int32_t>>>>;
  HWY_INLINE hn::Vec<D8> operator()(hn::Vec<hn::ScalableTag<std::int32_t>> a,
                                    hn::Vec<hn::ScalableTag<std::int32_t>> b,
                                    hn::Vec<hn::ScalableTag<std::int32_t>> c,
                                    hn::Vec<hn::ScalableTag<std::int32_t>> d) const {
    return (*this)(a, b, c, d, indices());
  }
  // The lane-order permutation, for loops that keep it in a register.
  using Indices = decltype(hn::SetTableIndices(hn::Repartition<std::uint32_t, D8>(), static_cast<const std::int32_t*>(nullptr)));
  HWY_INLINE Indices indices() const { return hn::SetTableIndices(du32_, table_); }
  HWY_INLINE hn::Vec<D8> operator()(hn::Vec<hn::ScalableTag<std::int32_t>> a,
                                    hn::Vec<hn::ScalableTag<std::int32_t>> b,
                                    hn::Vec<hn::ScalableTag<std::int32_t>> c,
                                    hn::Vec<hn::ScalableTag<std::int32_t>> d, Indices idx) const {
    return hn::BitCast(d8_, hn::TableLookupLanes(hn::BitCast(du32_, Raw(a, b, c, d)), idx));
  }

 private:
  HWY_INLINE hn::Vec<D8> Raw(hn::Vec<hn::ScalableTag<std::int32_t>> a,
                             hn::Vec<hn::ScalableTag<std::int32_t>> b,
                             hn::Vec<hn::ScalableTag<std::int32_t>> c,
                             hn::Vec<hn::ScalableTag<std::int32_t>> d) const {
#if HWY_TARGET == HWY_AVX2 || HWY_TARGET == HWY_AVX3 || HWY_TARGET == HWY_AVX3_DL
    // Three saturating packs (each within 128-bit blocks) instead of two packs, two narrowing
    // permutes and a combine: Highway 1.0.3 has no two-input 16-to-8-bit pack. Zen 5, int8 as
    // for EncodeRowsI8's FMA: 39.4-41.5 -> 37.5-39.3 cycles per row, 28 layers 3652-3885 ->
    // 3477-3597 ns.
    const auto ab = hn::ReorderDemote2To(di16_, a, b).raw;
    const auto cd = hn::ReorderDemote2To(di16_, c, d).raw;
#if HWY_TARGET == HWY_AVX2
    if constexpr (hwy::IsSigned<T8>()) return hn::Vec<D8>{_mm256_packs_epi16(ab, cd)};
    else return hn::Vec<D8>{_mm256_packus_epi16(ab, cd)};
#else
    if constexpr (hwy::IsSigned<T8>()) return hn::Vec<D8>{_mm512_packs_epi16(ab, cd)};
    else return hn::Vec<D8>{_mm512_packus_epi16(ab, cd)};
#endif
#else
    return hn::Combine(d8_, hn::DemoteTo(d8h_, hn::ReorderDemote2To(di16_, c, d)),
                       hn::DemoteTo(d8h_, hn::ReorderDemote2To(di16_, a, b)));
#endif
  }
  hn::ScalableTag<std::int32_t> di32_;
  hn::Repartition<std::int16_t, decltype(di32_)> di16_;
  hn::Rebind<T8, decltype(di16_)> d8h_;
  D8 d8_;
  hn::Repartition<std::uint32_t, D8> du32_;
  HWY_ALIGN std::int32_t table_[64] = {};
  bool usable_ = false;
};
#endif

// The fp32, fp16 and bf16 encoders load kRowBlock vectors of a row's fp32 source before they
// store any of them. An append's destination lines are rarely in L1 (a power-of-two head stride
// puts all of a token's rows into a few sets), so its stores wait in the store queue, and source
// loads issued after them waited too. With encode_token's single dispatch and fp16's full-width
// stores, kvbench append / append_memcpy (Zen 5, 1 thread, context 4096, two A/B rounds):
//   32 layers, 1 KV head:   fp32 1.86-1.96 -> 1.53-1.60, fp16 2.05-2.13 -> 1.52-1.54,
//                           bf16 2.25-2.40 -> 1.77-1.78 (int8 3.6-4.2 both: its row-scale chain)
//   Qwen3-0.6B (8 KV heads): fp32 0.91-1.09 -> 0.66-0.67, fp16 0.95-1.07 -> 0.64-0.67,
//                           bf16 1.39-2.24 -> 0.71-0.74 (int8 1.2-1.4 both)
// and prefill_copy within noise (bf16 43 -> 46-48 GB/s).
constexpr std::int64_t kRowBlock = 8;

// Stores the 8-bit codes of elements [0, j0) of a row (j0 a multiple of the vector length): four
// vectors per full-width store where Pack4 works on this target, one narrowed vector at a time
// otherwise. code(j) gives the int32 codes of elements [j, j + Lanes). No kRowBlock here: the
// row scale has read the whole row before the first code is stored.
template <typename T8, class F>
HWY_INLINE void StoreCodes(F code, T8* o, std::int64_t j0, bool stream) {
  const hn::ScalableTag<float> df;
  const hn::Rebind<T8, decltype(df)> dn;
  const std::int64_t N = static_cast<std::int64_t>(hn::Lanes(df));
  std::int64_t j = 0;
#if HWY_TARGET != HWY_SCALAR
  static const Pack4<T8> pack;
  if (pack.usable()) {
    const typename Pack4<T8>::D8 d8;
    const bool nt4 = stream && Aligned(d8, o);
    for (; j + 4 * N <= j0; j += 4 * N) Put(d8, pack(code(j), code(j + N), code(j + 2 * N), code(j + 3 * N)), o + j, nt4);
  }
#endif
  const bool nt = stream && Aligned(dn, o);
  for (; j < j0; j += N) Put(dn, hn::DemoteTo(dn, code(j)), o + j, nt);
}

// Bulk encodes (prefill) stream their fp32 source from memory, and the encoders that do more
// work per vector than a conversion keep too few source lines in flight: bf16 prefill ran at
// half fp16's rate until it prefetched the source kSourceAhead rows ahead (12.4 -> 21.5 GB/s,
// 128 MB source). Only for bulk calls: an append's few rows are already cached. 8 rows (4 KB at
// head_dim 128, the attention window's distance) rather than 4: Qwen3-0.6B prefill_copy from DRAM
// on the Zen 5 guest, one build, 12 rounds: int8 0.86x the time at 2 threads (11 of 12 rounds,
// significant) and 0.93x at 1, bf16 0.96-0.97x, fp32 and fp16 0.84-0.99x (10 rounds), none slower
// (results/epyc-zen5-2c-kvm-508m/prefill-source-ahead/); the EMR host, 16-32 rounds: int8 0.93x at
// 1 and 2 threads (significant), fp32 0.97-0.98x, both level at 16
// (results/xeon-emr-16c-kvm/prefill-source-ahead/).
constexpr std::int64_t kSourceAhead = 8;
constexpr std::int64_t kBulkRows = 32;
HWY_INLINE void PrefetchSource(const float* src, std::int64_t src_stride, std::int64_t r,
                               std::int64_t rows, std::int64_t d) {
  if (rows < kBulkRows || r + kSourceAhead >= rows) return;
  const float* row = src + (r + kSourceAhead) * src_stride;
  for (std::int64_t j = 0; j < d; j += 16) hwy::Prefetch(row + j);
}

// max |x| over a row as the scalar row scales compute it (std::fmax: NaN elements are skipped;
// max is exact, so the order of the reduction does not matter). Two accumulators halve the
// chains' length. NaN lanes must stay off the accumulators: x86's MAXPS returns its second
// operand when either is NaN, so MaxSkipNaN(|x|, m) keeps m for free; elsewhere NaN lanes are
// zeroed first (two more ops per vector: Zen 5 encoded int8 rows 5-12% slower that way).
template <class D>
HWY_INLINE hn::Vec<D> MaxSkipNaN(D, hn::Vec<D> a, hn::Vec<D> m) {
#if HWY_ARCH_X86 && HWY_TARGET != HWY_SCALAR && HWY_TARGET != HWY_EMU128
  return hn::Max(a, m);  // Highway's x86 Max is MAXPS(a, m): m where a is NaN
#else
  return hn::Max(m, hn::IfThenZeroElse(hn::IsNaN(a), a));
#endif
}

// max |x| lane by lane over a row's full vectors, and over the scalar elements after them.
template <class D>
HWY_INLINE hn::Vec<D> RowMaxAbsLanes(D df, const float* s, std::int64_t d) {
  const std::int64_t N = static_cast<std::int64_t>(hn::Lanes(df));
  const auto abs = [&](const float* p) { return hn::Abs(hn::LoadU(df, p)); };
  auto m0 = hn::Zero(df), m1 = hn::Zero(df);
  std::int64_t j = 0;
  for (; j + 2 * N <= d; j += 2 * N) {
    m0 = MaxSkipNaN(df, abs(s + j), m0);
    m1 = MaxSkipNaN(df, abs(s + j + N), m1);
  }
  for (; j + N <= d; j += N) m0 = MaxSkipNaN(df, abs(s + j), m0);
  return hn::Max(m0, m1);
}
HWY_INLINE float TailMaxAbs(const float* s, std::int64_t d, float max_abs) {
  const std::int64_t N = static_cast<std::int64_t>(hn::Lanes(hn::ScalableTag<float>()));
  for (std::int64_t j = d / N * N; j < d; ++j) max_abs = std::fmax(max_abs, std::fabs(s[j]));
  return max_abs;
}

HWY_INLINE float RowMaxAbs(const float* s, std::int64_t d) {
  const hn::ScalableTag<float> df;
  return TailMaxAbs(s, d, hn::GetLane(hn::MaxOfLanes(df, RowMaxAbsLanes(df, s, d))));
}

// Lane maxima of four vectors in one 128-bit vector [max a0, max a1, max a2, max a3]
// (lane_reduce-inl.h).
#if KVB_HAVE_REDUCE4
template <class D, class V = hn::Vec<D>>
HWY_INLINE hn::Vec<hn::Full128<float>> Max4(D d, V a0, V a1, V a2, V a3) {
  return Reduce4(d, a0, a1, a2, a3, [](auto x, auto y) { return hn::Max(x, y); });
}
#endif

// Row scales (max |x| / format_max, as the scalar codecs' row scales) of up to kScaleBlock rows
// before any of them is quantised: each row's reduce-then-divide chain is long but independent
// of the next row's, so computing them back to back lets them overlap. scale_out / inv_out get
// the scale and its reciprocal (0 for an all-zero row).
constexpr std::int64_t kScaleBlock = 16;
HWY_INLINE void BlockScales(const float* src, std::int64_t src_stride, std::int64_t n,
                            std::int64_t rows_left, std::int64_t d, float format_max,
                            float* scales, std::int64_t scale_stride, float* scale_out,
                            float* inv_out) {
  for (std::int64_t r = 0; r < n; ++r) {
    PrefetchSource(src, src_stride, r, rows_left, d);
    const float scale = RowMaxAbs(src + r * src_stride, d) / format_max;
    scales[r * scale_stride] = scale;
    scale_out[r] = scale;
    inv_out[r] = scale == 0.0f ? 0.0f : 1.0f / scale;
  }
}

// The largest code magnitude of a dtype with a row scale (scale = max |x| / this), else 0.
HWY_INLINE float ScaleFormatMax(DType dtype) {
  switch (dtype) {
    case DType::kI8: return 127.0f;
    case DType::kI4: return 7.0f;
    case DType::kF8E4M3: return kFp8E4M3Max;
    case DType::kF8E5M2: return kFp8E5M2Max;
    default: return 0.0f;
  }
}

// Scales handed to an encoder (`scale[r]`, `inv[r]` for its rows, already stored to the scale
// array): EncodeToken computes a slot's K and V scales together.
struct GivenScales {
  const float* scale;
  const float* inv;
};

// Row r's scale and reciprocal for the scaled encoders: the given ones, or computed here
// kScaleBlock rows at a time (BlockScales), in order of r.
class RowScales {
 public:
  RowScales(const float* src, std::int64_t src_stride, std::int64_t rows, std::int64_t d,
            DType dtype, float* scales, std::int64_t scale_stride, const GivenScales* given)
      : src_(src), src_stride_(src_stride), rows_(rows), d_(d), format_max_(ScaleFormatMax(dtype)),
        scales_(scales), scale_stride_(scale_stride), given_(given) {}
  HWY_INLINE void at(std::int64_t r, float* scale, float* inv) {
    if (given_ != nullptr) {
      *scale = given_->scale[r];
      *inv = given_->inv[r];
      return;
    }
    if (r % kScaleBlock == 0) {
      BlockScales(src_ + r * src_stride_, src_stride_, std::min(kScaleBlock, rows_ - r), rows_ - r,
                  d_, format_max_, scales_ + r * scale_stride_, scale_stride_, block_scale_, block_inv_);
    }
    *scale = block_scale_[r % kScaleBlock];
    *inv = block_inv_[r % kScaleBlock];
  }

 private:
  const float* src_;
  std::int64_t src_stride_, rows_, d_;
  float format_max_;
  float* scales_;
  std::int64_t scale_stride_;
  const GivenScales* given_;
  float block_scale_[kScaleBlock], block_inv_[kScaleBlock];
};

void EncodeRowsF32(const float* src, std::int64_t src_stride, float* dst, std::int64_t dst_stride,
                   std::int64_t rows, std::int32_t d, bool stream) {
  const hn::ScalableTag<float> df;
  const std::int64_t N = static_cast<std::int64_t>(hn::Lanes(df));
  for (std::int64_t r = 0; r < rows; ++r) {
    const float* s = src + r * src_stride;
    float* o = dst + r * dst_stride;
    PrefetchSource(src, src_stride, r, rows, d);
    const bool nt = stream && Aligned(df, o);
    std::int64_t j = 0;
    for (; j + kRowBlock * N <= d; j += kRowBlock * N) {
      hn::Vec<decltype(df)> x[kRowBlock];
      for (std::int64_t i = 0; i < kRowBlock; ++i) x[i] = hn::LoadU(df, s + j + i * N);
      for (std::int64_t i = 0; i < kRowBlock; ++i) Put(df, x[i], o + j + i * N, nt);
    }
    for (; j + N <= d; j += N) Put(df, hn::LoadU(df, s + j), o + j, nt);
    for (; j < d; ++j) o[j] = s[j];
  }
}

// f(std::integral_constant<std::int32_t, kD>) for the common head_dims at compile time, kD = 0
// for any other.
template <class F>
HWY_INLINE std::int64_t WithHeadDim(std::int32_t d, F f) {
  switch (d) {
    case 64: return f(std::integral_constant<std::int32_t, 64>());
    case 128: return f(std::integral_constant<std::int32_t, 128>());
    case 256: return f(std::integral_constant<std::int32_t, 256>());
    default: return f(std::integral_constant<std::int32_t, 0>());
  }
}

// kD: the row length at compile time (0: at run time), so an append's rows unroll (see
// EncodeBF16HalfUp: a run-time loop over a row's vectors slowed Zen 3 appends whose head stride
// came near 1 MiB). Qwen3-0.6B fp16 append, 1 thread: Zen 3 guest 0.71x the time at 4096
// positions and 0.79x at 4095 (12 rounds), 0.93-0.97x at 292 and 4093; EMR host 0.86-1.04x, none
// significant (10 rounds).
template <std::int32_t kD>
HWY_INLINE void EncodeRowsF16Impl(const float* src, std::int64_t src_stride, std::uint16_t* dst,
                                  std::int64_t dst_stride, std::int64_t rows, std::int32_t head_dim, bool stream) {
  const std::int64_t d = kD > 0 ? kD : head_dim;
  std::int64_t j0 = 0;
#if KVB_VECTOR_F16
  const hn::ScalableTag<float> df;
  const hn::Rebind<hwy::float16_t, decltype(df)> dh;
  const hn::Rebind<std::uint16_t, decltype(df)> du;
  const hn::Twice<decltype(du)> du2;
  const std::int64_t N = static_cast<std::int64_t>(hn::Lanes(df));
  j0 = d / N * N;
  for (std::int64_t r = 0; r < rows; ++r) {
    const float* s = src + r * src_stride;
    std::uint16_t* o = dst + r * dst_stride;
    const bool nt = stream && Aligned(du, o);
    std::int64_t j = 0;
    HWY_UNROLL(4)
    for (; j + kRowBlock * N <= j0; j += kRowBlock * N) {
      hn::Vec<decltype(df)> x[kRowBlock];
      for (std::int64_t i = 0; i < kRowBlock; ++i) x[i] = hn::LoadU(df, s + j + i * N);
      if (stream) {  // combined, the streamed prefill ran 35% slower (Zen 5)
        for (std::int64_t i = 0; i < kRowBlock; ++i) Put(du, hn::BitCast(du, hn::DemoteTo(dh, x[i])), o + j + i * N, nt);
        continue;
      }
      // Two vectors' halves per full-width store: half as many stores waiting on missing lines.
      for (std::int64_t i = 0; i < kRowBlock; i += 2)
        hn::StoreU(hn::Combine(du2, hn::BitCast(du, hn::DemoteTo(dh, x[i + 1])), hn::BitCast(du, hn::DemoteTo(dh, x[i]))),
                   du2, o + j + i * N);
    }
    for (; j < j0; j += N) Put(du, hn::BitCast(du, hn::DemoteTo(dh, hn::LoadU(df, s + j))), o + j, nt);
  }
#else
  (void)stream;
#endif
  for (std::int64_t r = 0; r < rows; ++r)
    for (std::int64_t j = j0; j < d; ++j) dst[r * dst_stride + j] = f32_to_f16(src[r * src_stride + j]);
}

void EncodeRowsF16(const float* src, std::int64_t src_stride, std::uint16_t* dst,
                   std::int64_t dst_stride, std::int64_t rows, std::int32_t d, bool stream) {
  if (stream) return EncodeRowsF16Impl<0>(src, src_stride, dst, dst_stride, rows, d, true);
  WithHeadDim(d, [&](auto kD) {
    EncodeRowsF16Impl<kD()>(src, src_stride, dst, dst_stride, rows, d, false);
    return std::int64_t{0};
  });
}

// One set of a token's fp16 rows (K or V), cached stores: EncodeRowsF16 without its streaming
// path's frame.
template <std::int32_t kD>
HWY_NOINLINE void EncodeRowsF16Cached(const float* src, std::uint16_t* dst, std::int64_t dst_stride,
                                      std::int64_t rows, std::int32_t d) {
  EncodeRowsF16Impl<kD>(src, d, dst, dst_stride, rows, d, false);
}

// A token's fp16 K and V rows (an append) with nothing between append_token and the rows but the
// dispatch: EncodeToken's frame and EncodeRowsF16's cost more than the rows' work where a layer's
// slot is one K and one V row (one KV head). K and V stay two calls: with both loops in one
// function, two KV heads' fresh slots took 1.9x the time on the Zen 5 guest (cause not found).
// A switch rather than WithHeadDim, whose lambda's captures went through the stack as vector
// stores read back as pointers: such a load waits until the store commits, and where the previous
// layer's stores miss (a fresh slot) that is a memory latency per layer.
void EncodeTokenF16(const float* k_src, std::uint16_t* k_dst, const float* v_src, std::uint16_t* v_dst,
                    std::int64_t dst_stride, std::int64_t rows, std::int32_t d) {
  switch (d) {
    case 64:
      EncodeRowsF16Cached<64>(k_src, k_dst, dst_stride, rows, d);
      return EncodeRowsF16Cached<64>(v_src, v_dst, dst_stride, rows, d);
    case 128:
      EncodeRowsF16Cached<128>(k_src, k_dst, dst_stride, rows, d);
      return EncodeRowsF16Cached<128>(v_src, v_dst, dst_stride, rows, d);
    case 256:
      EncodeRowsF16Cached<256>(k_src, k_dst, dst_stride, rows, d);
      return EncodeRowsF16Cached<256>(v_src, v_dst, dst_stride, rows, d);
    default:
      EncodeRowsF16Cached<0>(k_src, k_dst, dst_stride, rows, d);
      return EncodeRowsF16Cached<0>(v_src, v_dst, dst_stride, rows, d);
  }
}

// bf16 of each lane of fp32 bits, in the upper 16 bits of the u32 lane (f32_to_bf16: nearest
// even, NaN made quiet). The NaN test is one class test on the float view (7% faster than an
// integer compare of |bits|); kNaN false leaves it out, for vectors known to hold no NaN.
template <bool kNaN = true, class DU>
HWY_INLINE hn::Vec<DU> Bf16High(DU du32, hn::Vec<DU> bits) {
  const hn::Rebind<float, DU> df;
  const auto rounded = hn::Add(bits, hn::Add(hn::Set(du32, 0x7fffu), hn::And(hn::ShiftRight<16>(bits), hn::Set(du32, 1u))));
  if constexpr (!kNaN) return rounded;
  const auto nan = hn::RebindMask(du32, hn::IsNaN(hn::BitCast(df, bits)));
  return hn::IfThenElse(nan, hn::Or(bits, hn::Set(du32, 0x00400000u)), rounded);
}

// Whether a block of kRowBlock vectors may hold a NaN: their float sum is NaN if any is (or if
// infinities of both signs meet, which only costs the NaN-aware path). Seven adds and one test
// per block instead of three ops per vector. 16 rows of 128 from L1, ticks per call, before ->
// after (results/xeon-emr-16c-kvm/session-2026-11-27g/): Zen 4 guest 387-449 -> 366-370, EMR
// 410-492 -> 376-382 (669-903 in a disturbed round); an append's rows (28 layers x 16, 4099
// positions) EMR 12.2-16.6k -> 10.3-15.1k ticks per token; bf16 prefill_copy at 16 EMR threads
// 0.77-0.91x the time (4 rounds).
template <class DU>
HWY_INLINE bool MayHoldNaN(DU du32, const hn::Vec<DU>* x) {
  const hn::Rebind<float, DU> df;
  auto sum = hn::BitCast(df, x[0]);
  for (std::int64_t i = 1; i < kRowBlock; ++i) sum = hn::Add(sum, hn::BitCast(df, x[i]));
  return !hn::AllFalse(df, hn::IsNaN(sum));
}

#if HWY_TARGET == HWY_AVX2
// An AVX2 call's whole 2N-element pairs of every row rounded half up ((bits + 0x8000) >> 16, one
// add per vector), which is f32_to_bf16's nearest even for every finite input but exact ties; the
// call is checked once: the low words of bits + 0x8000 folded by a minimum (0 only for a tie) and
// each pair's float sum tested for NaN (NaN if an input is, or if infinities of both signs meet).
// Either returns 0 and the caller redoes the call with the rounding below, so the codes are the
// same. About four ops per 8 elements fewer than Bf16High with the block NaN test. Zen 3 guest, 1
// thread (results/epyc-zen3-2c-kvm/bf16-append-half-up/): 16 rows of 128 from L1 0.57-0.75x the
// ticks, Qwen3-0.6B bf16 append 0.70-0.71x the time (8 KV heads) and 0.83-0.84x (1), 12 rounds.
// One check per call, as the AVX512-BF16 converter's (row_encode_avx512bf16.h). kD: the row
// length at compile time (0: at run time), so a row's pairs are unrolled: with them in a loop, a
// Zen 3 append whose head stride came within 256 bytes of 1 MiB (4095-4097 positions) took
// 1.6-1.7x its time at 4093 (checks.cc there); unrolled, the Qwen3-0.6B bf16 append took
// 0.61-0.63x the time at 4095 and 4096 positions and the same at 292 and 4093 (10 rounds).
// Returns the elements done per row.
// With `stream`, non-temporal stores where a row is aligned (a redo after them fences first).
template <std::int32_t kD>
HWY_INLINE std::int64_t EncodeBF16HalfUp(const float* src, std::int64_t src_stride, std::uint16_t* dst,
                                         std::int64_t dst_stride, std::int64_t rows, std::int32_t head_dim,
                                         bool stream) {
  const hn::ScalableTag<std::uint32_t> du32;
  const hn::Repartition<float, decltype(du32)> df;
  const hn::Repartition<std::uint16_t, decltype(du32)> dw16;
  const std::int64_t N = static_cast<std::int64_t>(hn::Lanes(du32));
  const std::int64_t d = kD > 0 ? kD : head_dim;
  const std::int64_t whole = d - d % (2 * N);
  if (whole == 0) return 0;
  const auto half = hn::Set(du32, 0x8000u);
  auto low_a = hn::Set(dw16, 0xFFFFu), low_b = low_a;
  auto nan = hn::Zero(df);
  for (std::int64_t r = 0; r < rows; ++r) {
    const auto* s = reinterpret_cast<const std::uint32_t*>(src + r * src_stride);
    std::uint16_t* o = dst + r * dst_stride;
    const bool nt = stream && Aligned(dw16, o);
    HWY_UNROLL(16)
    for (std::int64_t j = 0; j < whole; j += 2 * N) {
      auto a = hn::LoadU(du32, s + j);
      auto b = hn::LoadU(du32, s + j + N);
      nan = hn::Or(nan, hn::VecFromMask(df, hn::IsNaN(hn::Add(hn::BitCast(df, a), hn::BitCast(df, b)))));
      a = hn::Add(a, half);
      b = hn::Add(b, half);
      low_a = hn::Min(low_a, hn::BitCast(dw16, a));  // the high words' minima are not read
      low_b = hn::Min(low_b, hn::BitCast(dw16, b));
      Put(dw16, hn::ConcatOdd(dw16, hn::BitCast(dw16, b), hn::BitCast(dw16, a)), o + j, nt);
    }
  }
  const auto low = hn::And(hn::BitCast(du32, hn::Min(low_a, low_b)), hn::Set(du32, 0xFFFFu));
  if (!hn::AllFalse(du32, hn::Eq(low, hn::Zero(du32))) || !hn::AllFalse(df, hn::MaskFromVec(nan))) {
    if (stream) hwy::FlushStream();  // the redo's stores land after these
    return 0;
  }
  return whole;
}

#endif

// `token`: one token's rows (an append), which take the AVX2 half-up path streaming too; a bulk
// write's many rows would nearly always hold a tie and redo the call.
void EncodeRowsBF16(const float* src, std::int64_t src_stride, std::uint16_t* dst,
                    std::int64_t dst_stride, std::int64_t rows, std::int32_t d, bool stream,
                    [[maybe_unused]] bool token = false) {
  const hn::ScalableTag<float> df;
  const hn::RebindToUnsigned<decltype(df)> du32;
  const hn::RebindToSigned<decltype(df)> di32;
  const hn::Rebind<std::uint16_t, decltype(df)> du16;
  const std::int64_t N = static_cast<std::int64_t>(hn::Lanes(df));
  std::int64_t j_first = 0;
#if HWY_TARGET == HWY_AVX3 || HWY_TARGET == HWY_AVX3_DL
  // Calls of 2 to 31 rows (cached, or a token's streamed), where the CPU has AVX512-BF16: every
  // row's whole 32-element pairs in one call, the same codes (kernels/row_encode_avx512bf16.h); the
  // loop below does what is left, and every call it does not serve (bulk streaming ones too). An
  // append's K and V rows reach the converter from append_token, so they come here only where it
  // is off or the rows are not whole pairs.
  if (!stream || token) j_first = detail::encode_bf16_rows_avx512(src, src_stride, dst, dst_stride, rows, d, stream);
  if (j_first == d) return;
#elif HWY_TARGET == HWY_AVX2
  if (!stream || token)
    j_first = WithHeadDim(d, [&](auto kD) { return EncodeBF16HalfUp<kD()>(src, src_stride, dst, dst_stride, rows, d, stream); });
  if (j_first == d) return;
#endif
  for (std::int64_t r = 0; r < rows; ++r) {
    const float* s = src + r * src_stride;
    std::uint16_t* o = dst + r * dst_stride;
    if (j_first == 0) PrefetchSource(src, src_stride, r, rows, d);
    const auto load = [&](std::int64_t e) { return hn::LoadU(du32, reinterpret_cast<const std::uint32_t*>(s + e)); };
    std::int64_t j = j_first;
#if HWY_TARGET != HWY_SCALAR
    // Two vectors at a time: their upper halves gathered by one two-table permute (ConcatOdd)
    // into one full store, instead of a pack and a permute per half-width store.
    const hn::Repartition<std::uint16_t, decltype(du32)> dw16;
    const bool nt2 = stream && Aligned(dw16, o);
    const auto pair = [&](auto nan, hn::Vec<decltype(du32)> lo, hn::Vec<decltype(du32)> hi, std::int64_t e) {
      constexpr bool kNaN = decltype(nan)::value;
      Put(dw16, hn::ConcatOdd(dw16, hn::BitCast(dw16, Bf16High<kNaN>(du32, hi)), hn::BitCast(dw16, Bf16High<kNaN>(du32, lo))),
          o + e, nt2);
    };
    for (; j + kRowBlock * N <= d; j += kRowBlock * N) {
      hn::Vec<decltype(du32)> x[kRowBlock];
      for (std::int64_t i = 0; i < kRowBlock; ++i) x[i] = load(j + i * N);
      if (MayHoldNaN(du32, x)) {
        for (std::int64_t i = 0; i < kRowBlock; i += 2) pair(std::true_type(), x[i], x[i + 1], j + i * N);
      } else {
        for (std::int64_t i = 0; i < kRowBlock; i += 2) pair(std::false_type(), x[i], x[i + 1], j + i * N);
      }
    }
    for (; j + 2 * N <= d; j += 2 * N) pair(std::true_type(), load(j), load(j + N), j);
#endif
    const bool nt = stream && Aligned(du16, o + j);
    for (; j + N <= d; j += N) {
      const auto top = hn::ShiftRight<16>(Bf16High(du32, load(j)));
      Put(du16, hn::DemoteTo(du16, hn::BitCast(di32, top)), o + j, nt);
    }
    for (; j < d; ++j) o[j] = f32_to_bf16(s[j]);
  }
}

// One int8 row with its scale and reciprocal (int8_row_scale, 1 / scale).
HWY_INLINE void QuantiseI8Row(const float* s, std::int8_t* o, std::int32_t d, float scale, float inv,
                              bool stream) {
  const hn::ScalableTag<float> df;
  const std::int64_t N = static_cast<std::int64_t>(hn::Lanes(df));
  const std::int64_t j0 = d / N * N;
  if (scale == 0.0f) {
    std::memset(o, 0, static_cast<std::size_t>(d));
    return;
  }
  const RowQuotient<decltype(df)> quotient(df, scale, inv);
  if (quotient.divide) {  // a subnormal scale: x / scale rounds, then can exceed 127
    const auto lo = hn::Set(df, -127.0f), hi = hn::Set(df, 127.0f);
    const auto quantise = [&](std::int64_t j) {
      return RoundSmall(df, hn::Min(hi, hn::Max(lo, quotient(hn::LoadU(df, s + j)))));
    };
    StoreCodes(quantise, o, j0, stream);
  } else {
#if HWY_NATIVE_FMA
    // RoundProduct: one rounding of the exact product. No clamp: scale = max |x| / 127, so for a finite row
    // |x * inv| <= 127 (1 + 2^-22), which rounds to 127 at most. Against the multiply, two
    // clamps and add it replaces (Zen 5, three alternating rounds): encode_token of one
    // Qwen3-0.6B layer's 16 rows, L1 to L1, 44.5-46 -> 39-42 cycles per row; one token into
    // all 28 layers 4160-4582 -> 3671-3983 ns (a memcpy of the same bytes: 2.6-2.9 us).
    const auto quantise = [&](std::int64_t j) { return RoundProduct(df, hn::LoadU(df, s + j), quotient.vinv); };
    StoreCodes(quantise, o, j0, stream);
#else
    // Without a fused multiply-add the product would round before the magic add.
    encode_int8_row(s, d, scale, o);
    return;
#endif
  }
  if (j0 < d) encode_int8_row(s + j0, static_cast<std::int32_t>(d - j0), scale, o + j0);
}

#if KVB_HAVE_REDUCE4 && HWY_NATIVE_FMA
// int8 rows four at a time. A group's row scales: the maxima from one Max4 reduction, the scales
// and reciprocals from one vector division each (the IEEE operations of int8_row_scale and
// 1 / scale). Its codes: one FMA per vector, Pack4's packs with the permutation in a register.
// A group with a zero or subnormal scale goes through QuantiseI8Row, tested once per group.
// kBulk: a prefill's source prefetch and streaming stores (their tests cost 2 cycles per row);
// the head_dim is a compile-time constant where WithHeadDim makes it one (a run-time head_dim
// cost 7 cycles per row).
// An append computes the scales of a block of K rows and of V rows before any of their codes: a
// group's scale chain is long, and codes waiting on it filled the scheduler ahead of the next
// group's loads. Encode_token of one Qwen3-0.6B layer's 16 rows, L1 to L1 (Zen 5): 27-28 cycles
// per row with each group's codes right after its scales, 20 with the block's scales first.
// A prefill keeps groups of four: its source prefetch runs in the scales phase, and blocks of 16
// rows left the codes phase without it (int8 prefill 50 -> 35-37 GB/s).
struct I8Block {
  HWY_ALIGN float scale[kScaleBlock];
  HWY_ALIGN float inv[kScaleBlock];
  bool special[kScaleBlock / 4];  // per group: a zero or subnormal scale
};

// The four-row encoder's packer, for rows of d elements, or null where it does not serve them on
// this target. Callers keep it and its permutation for the whole call: set up per group of four
// rows, they cost a prefill 8% (Zen 5, int8 44-48 -> 51-52 GB/s).
HWY_INLINE const Pack4<std::int8_t>* I8By4Packer(std::int64_t d) {
  static const Pack4<std::int8_t> pack;
  return pack.usable() && d >= static_cast<std::int64_t>(hn::Lanes(hn::ScalableTag<float>())) ? &pack : nullptr;
}

// Scales and reciprocals of four rows x[0..3], in lanes 0..3 (reciprocal 0 for a zero scale),
// where rows from `distinct` on repeat the first ones (x[i] == x[i - distinct]) and are not read
// again; `special`: any scale is zero or subnormal. Inlined, so a compile-time d unrolls its loops
// and a compile-time `distinct` keeps the maxima in registers.
struct I8GroupScaleLanes {
  hn::Vec<hn::Full128<float>> scale, inv;
  bool special;
};
HWY_INLINE I8GroupScaleLanes I8GroupScaleVectors(const float* const* x, int distinct, std::int64_t d) {
  const hn::ScalableTag<float> df;
  const hn::Full128<float> d4;
  const std::int64_t j0 = d / static_cast<std::int64_t>(hn::Lanes(df)) * static_cast<std::int64_t>(hn::Lanes(df));
  hn::Vec<decltype(df)> m[4];
  for (int i = 0; i < 4; ++i) m[i] = i < distinct ? RowMaxAbsLanes(df, x[i], d) : m[i - distinct];
  auto max4 = Max4(df, m[0], m[1], m[2], m[3]);
  if (j0 < d) {
    HWY_ALIGN float lanes[4];
    hn::Store(max4, d4, lanes);
    for (int i = 0; i < 4; ++i) lanes[i] = TailMaxAbs(x[i], d, lanes[i]);
    max4 = hn::Load(d4, lanes);
  }
  const auto vscale = hn::Div(max4, hn::Set(d4, 127.0f));
  const auto vinv = hn::Div(hn::Set(d4, 1.0f), vscale);
  const auto zero = hn::Eq(vscale, hn::Zero(d4));
  const auto kInfinity = hn::Set(d4, std::numeric_limits<float>::infinity());
  return {vscale, hn::IfThenZeroElse(zero, vinv),
          !hn::AllFalse(d4, hn::Or(zero, hn::Eq(vinv, kInfinity)))};  // row_divides, or all zeros
}

// The same into scale[0..3] and inv[0..3]; returns `special`.
HWY_INLINE bool I8GroupScales(const float* const* x, int distinct, std::int64_t d, float* scale, float* inv) {
  const hn::Full128<float> d4;
  const I8GroupScaleLanes g = I8GroupScaleVectors(x, distinct, d);
  hn::StoreU(g.scale, d4, scale);
  hn::StoreU(g.inv, d4, inv);
  return g.special;
}

// Scales of rows [r, r + n) of a call's `rows` (n a multiple of 4, at most kScaleBlock), stored
// to `scales` and kept in `block`.
template <bool kBulk>
HWY_INLINE void I8BlockScales(const float* src, std::int64_t src_stride, std::int64_t r, std::int64_t n,
                              std::int64_t rows, std::int64_t d, float* scales, std::int64_t scale_stride,
                              I8Block& block) {
  for (std::int64_t g = 0; g < n; g += 4) {
    const float* x[4];
    for (int i = 0; i < 4; ++i) {
      if constexpr (kBulk) PrefetchSource(src, src_stride, r + g + i, rows, d);
      x[i] = src + (r + g + i) * src_stride;
    }
    block.special[g / 4] = I8GroupScales(x, 4, d, block.scale + g, block.inv + g);
    for (int i = 0; i < 4; ++i) scales[(r + g + i) * scale_stride] = block.scale[g + i];
  }
}

// The codes of row x into o, with its scale and reciprocal from I8GroupScales (`special`: that
// group's flag). An append's callers pass `stream` as a constant, so its test folds away there.
template <bool kBulk>
HWY_INLINE void I8RowCodes(const float* x, std::int8_t* o, std::int64_t d, float scale, float inv, bool special,
                           const Pack4<std::int8_t>& pack, typename Pack4<std::int8_t>::Indices idx, bool stream) {
  if (special) {
    QuantiseI8Row(x, o, static_cast<std::int32_t>(d), scale, inv, stream);
    return;
  }
  const hn::ScalableTag<float> df;
  const hn::Rebind<std::int8_t, decltype(df)> dn;
  const std::int64_t N = static_cast<std::int64_t>(hn::Lanes(df));
  const std::int64_t j4 = d / (4 * N) * (4 * N), j0 = d / N * N;
  const typename Pack4<std::int8_t>::D8 d8;
  // As QuantiseI8Row's FMA path: no clamp needed for a finite row.
  const auto row_inv = hn::Set(df, inv);
  const auto code = [&](std::int64_t j) { return RoundProduct(df, hn::LoadU(df, x + j), row_inv); };
  const auto group = [&](std::int64_t j) { return pack(code(j), code(j + N), code(j + 2 * N), code(j + 3 * N), idx); };
  std::int64_t j = 0;
  if (kBulk || stream) {
    const bool nt4 = stream && Aligned(d8, o);
    for (; j < j4; j += 4 * N) Put(d8, group(j), o + j, nt4);
    for (; j < j0; j += N) Put(dn, hn::DemoteTo(dn, code(j)), o + j, stream && Aligned(dn, o + j));
  } else {
    for (; j < j4; j += 4 * N) hn::StoreU(group(j), d8, o + j);
    for (; j < j0; j += N) hn::StoreU(hn::DemoteTo(dn, code(j)), dn, o + j);
  }
  if (j0 < d) encode_int8_row(x + j0, static_cast<std::int32_t>(d - j0), scale, o + j0);
}

// Codes of rows [r, r + n) with the scales I8BlockScales left in `block`.
template <bool kBulk>
HWY_INLINE void I8BlockCodes(const float* src, std::int64_t src_stride, std::int8_t* dst, std::int64_t dst_stride,
                             std::int64_t r, std::int64_t n, std::int64_t d, const I8Block& block,
                             const Pack4<std::int8_t>& pack, typename Pack4<std::int8_t>::Indices idx, bool stream) {
  for (std::int64_t i = 0; i < n; ++i)
    I8RowCodes<kBulk>(src + (r + i) * src_stride, dst + (r + i) * dst_stride, d, block.scale[i], block.inv[i],
                      block.special[i / 4], pack, idx, stream);
}

// A prefill's rows, group by group. Returns the rows encoded (a multiple of 4).
template <std::int32_t kD>
HWY_NOINLINE std::int64_t EncodeRowsI8By4(const float* src, std::int64_t src_stride, std::int8_t* dst,
                                          std::int64_t dst_stride, std::int64_t rows, std::int32_t head_dim,
                                          float* scales, std::int64_t scale_stride, bool stream) {
  const std::int64_t d = kD > 0 ? kD : head_dim;
  const Pack4<std::int8_t>* pack = I8By4Packer(d);
  if (pack == nullptr) return 0;
  const auto idx = pack->indices();
  std::int64_t r = 0;
  I8Block block;
  for (; r + 4 <= rows; r += 4) {
    I8BlockScales<true>(src, src_stride, r, 4, rows, d, scales, scale_stride, block);
    I8BlockCodes<true>(src, src_stride, dst, dst_stride, r, 4, d, block, *pack, idx, stream);
  }
  return r;
}

// The lines of a block's K and V code rows [r, r + n), requested before the block's scale chains,
// which store nothing. At a new position every step (a decode's append) each of those lines
// misses, and the codes' stores, an encoder's work apart, keep few misses in flight; without the
// request, how many the hardware prefetchers fetched ahead moved with the code's placement (on
// the Zen 5 guest 1.3-1.4x; results/epyc-zen5-2c-kvm-508m/fresh-layout/). kvbench ab, int8, 4 /
// 8 / 16 KV heads, 1000 and 4096 positions, 1 thread, each arm at two placements: at fresh slots
// 0.73-0.93x the time on the Zen 5 guest (8 rounds; 8 KV heads 1.63 -> 1.17x its memcpy) and
// 0.53-0.82x on the EMR host (6 rounds, 6 of 6 faster); a rewritten slot (warm) 1.04-1.27x and
// 0.98-1.27x, where it stays below its memcpy's time (results/*/int8-slot-prefetch/). T2 instead of
// T0 cost as much warm. The prefill's bulk path (EncodeRowsI8By4) and streaming stores need none.
// The request asks for ownership (PREFETCHW). At 2 threads the Zen 5 guest's stores to a slot at
// times wait on their lines (its memcpy then 3x its 1-thread time); a T0 request fetches a line to
// read, so the store still waits, and the append took 1.41-2.09x the time of no request in such
// rounds. kvbench ab, 16 rounds, four code placements per arm: PREFETCHW 0.56-0.71x T0's time at
// 2 threads, 0.94-1.06x at 1; against no request 0.75-0.98x at 2 threads, at 1 a fresh DRAM slot
// 0.91x, a rewritten one 1.04-1.07x (results/epyc-zen5-2c-kvm-508m/two-thread-int8/). On the EMR
// host PREFETCHW took eight KV heads' fresh 1000-position slots 1.26x / 1.29x T0's time at 1 / 2
// threads (results/xeon-emr-16c-kvm/int8-prefetchw/), so which one an append makes is a run-time
// choice (kernels/slot_prefetch.h; kvbench run --slot-prefetch auto: W on AMD family 26 only).
// Highway has no write hint, so x86's is inline assembly, on the AVX-512 targets only: every
// AVX-512 CPU has PREFETCHW, while Intel's AVX2 cores before Broadwell do not list it (CPUID
// PRFCHW); there the request stays T0.
HWY_INLINE void PrefetchForWrite(const void* p) {
#if HWY_ARCH_X86 && HWY_TARGET <= HWY_AVX3
  asm volatile("prefetchw %0" : : "m"(*static_cast<const char*>(p)));
#elif HWY_ARCH_X86
  hwy::Prefetch(static_cast<const char*>(p));
#else
  __builtin_prefetch(p, 1, 3);
#endif
}

// The request chosen at compile time: with it as a lambda (6f96831-5b5fb09) GCC 12 dropped the
// inlined hwy::Prefetch from every target, so the t0 request issued nothing (the disassembly had no
// PREFETCHT0 in the encoders; PREFETCHW's inline assembly stayed).
template <bool kOwned>
HWY_INLINE void RequestBlockLines(const void* k_dst, const void* v_dst, std::int64_t dst_stride,
                                  std::int64_t r, std::int64_t n, std::int64_t d) {
  for (std::int64_t i = r; i < r + n; ++i) {
    for (std::int64_t j = 0; j < d; j += 64) {
      const std::int8_t* k_line = static_cast<const std::int8_t*>(k_dst) + i * dst_stride + j;
      const std::int8_t* v_line = static_cast<const std::int8_t*>(v_dst) + i * dst_stride + j;
      if constexpr (kOwned) {
        PrefetchForWrite(k_line);
        PrefetchForWrite(v_line);
      } else {
        hwy::Prefetch(k_line);
        hwy::Prefetch(v_line);
      }
    }
  }
}

// Rows r..r+n of a token's K and V codes, requested as kvbench run --slot-prefetch says
// (kernels/slot_prefetch.h).
HWY_INLINE void I8PrefetchBlockLines(SlotPrefetch hint, const void* k_dst, const void* v_dst,
                                     std::int64_t dst_stride, std::int64_t r, std::int64_t n,
                                     std::int64_t d) {
  if (hint == SlotPrefetch::kWrite)
    RequestBlockLines<true>(k_dst, v_dst, dst_stride, r, n, d);
  else if (hint == SlotPrefetch::kRead)
    RequestBlockLines<false>(k_dst, v_dst, dst_stride, r, n, d);
}

// A token's K and V rows (source rows d floats apart), blocks of up to kScaleBlock rows: both
// blocks' scales, then both blocks' codes (kStream: with streaming stores, unfenced). Returns the
// rows of each encoded (a multiple of 4).
template <std::int32_t kD, bool kStream = false>
HWY_NOINLINE std::int64_t EncodeTokenI8By4(const SlotRows& key, const SlotRows& value, std::int64_t dst_stride,
                                           std::int64_t rows, std::int32_t head_dim, std::int64_t scale_stride) {
  const std::int64_t d = kD > 0 ? kD : head_dim;
  const Pack4<std::int8_t>* pack = I8By4Packer(d);
  if (pack == nullptr) return 0;
  const auto idx = pack->indices();
  [[maybe_unused]] const SlotPrefetch hint = slot_prefetch();  // streaming stores request nothing
  std::int64_t r = 0;
  I8Block k_block, v_block;
  for (std::int64_t n; (n = std::min(kScaleBlock, (rows - r) / 4 * 4)) > 0; r += n) {
    if constexpr (!kStream) I8PrefetchBlockLines(hint, key.dst, value.dst, dst_stride, r, n, d);
    I8BlockScales<false>(key.src, d, r, n, rows, d, key.scales, scale_stride, k_block);
    I8BlockScales<false>(value.src, d, r, n, rows, d, value.scales, scale_stride, v_block);
    I8BlockCodes<false>(key.src, d, static_cast<std::int8_t*>(key.dst), dst_stride, r, n, d, k_block, *pack, idx, kStream);
    I8BlockCodes<false>(value.src, d, static_cast<std::int8_t*>(value.dst), dst_stride, r, n, d, v_block, *pack, idx,
                        kStream);
  }
  return r;
}

// Row kLane of a token's group of four (EncodeTokenI8Rows): its scale to *scale_out, its codes
// with the reciprocal broadcast from the group's vector.
template <int kLane>
HWY_INLINE void I8TokenRow(const I8GroupScaleLanes& g, const float* x, std::int8_t* o, float* scale_out,
                           std::int64_t d, const Pack4<std::int8_t>& pack, typename Pack4<std::int8_t>::Indices idx) {
  const float scale = hn::GetLane(hn::Broadcast<kLane>(g.scale));
  *scale_out = scale;
  I8RowCodes<false>(x, o, d, scale, hn::GetLane(hn::Broadcast<kLane>(g.inv)), g.special, pack, idx, false);
}

// A token's K and V rows when there are kRows (one or two) of each, i.e. one or two KV heads: all
// of them as one group of four, repeating rows to fill it. Before, such rows took one scale chain
// (reduction, two scalar divisions) and one encoder call each: kvbench `append`, 32 layers, 4096
// tokens, int8, 1 thread (Zen 5, three alternating rounds): one KV head 1332-1342 -> 1150-1159 ns
// (2.90-3.06 -> 2.50-2.58x the memcpy), two 1815-1838 -> 1639-1726 ns. What is left is the
// scale chain's latency once per layer, so nothing else may lengthen it: with kRows a run-time
// count the four maxima went through the stack, and the rows' scales and reciprocals were
// stored and read back; here they stay in registers.
template <std::int32_t kD, int kRows>
HWY_NOINLINE void EncodeTokenI8Rows(const float* k_src, std::int8_t* k_dst, float* k_scales, const float* v_src,
                                    std::int8_t* v_dst, float* v_scales, std::int64_t dst_stride,
                                    std::int64_t scale_stride, std::int32_t head_dim,
                                    const Pack4<std::int8_t>& pack) {
  static_assert(kRows == 1 || kRows == 2, "one group of four rows");
  const std::int64_t d = kD > 0 ? kD : head_dim;
  const auto idx = pack.indices();
  // The slot's lines requested owned before the scale chain, as the blocks of more rows do. Zen 5
  // guest, kvbench ab, 16 rounds, four placements per arm: two KV heads at fresh DRAM slots 0.76x
  // / 0.89x the time at 1 / 2 threads (4096 positions), one KV head and warm rows 0.92-1.03x, none
  // slower (results/epyc-zen5-2c-kvm-508m/int8-few-token/ab-fewpfw/).
  I8PrefetchBlockLines(slot_prefetch(), k_dst, v_dst, dst_stride, 0, kRows, d);
  if constexpr (kRows == 1) {
    const float* const x[4] = {k_src, v_src, k_src, v_src};
    const I8GroupScaleLanes g = I8GroupScaleVectors(x, 2, d);
    I8TokenRow<0>(g, k_src, k_dst, k_scales, d, pack, idx);
    I8TokenRow<1>(g, v_src, v_dst, v_scales, d, pack, idx);
  } else {
    const float* const x[4] = {k_src, k_src + d, v_src, v_src + d};
    const I8GroupScaleLanes g = I8GroupScaleVectors(x, 4, d);
    I8TokenRow<0>(g, x[0], k_dst, k_scales, d, pack, idx);
    I8TokenRow<1>(g, x[1], k_dst + dst_stride, k_scales + scale_stride, d, pack, idx);
    I8TokenRow<2>(g, x[2], v_dst, v_scales, d, pack, idx);
    I8TokenRow<3>(g, x[3], v_dst + dst_stride, v_scales + scale_stride, d, pack, idx);
  }
}

#endif

void EncodeRowsI8(const float* src, std::int64_t src_stride, std::int8_t* dst,
                  std::int64_t dst_stride, std::int64_t rows, std::int32_t d, float* scales,
                  std::int64_t scale_stride, bool stream, const GivenScales* given) {
  std::int64_t r = 0;
#if KVB_HAVE_REDUCE4 && HWY_NATIVE_FMA
  if (given == nullptr) {
    r = WithHeadDim(d, [&](auto kD) {
      return EncodeRowsI8By4<kD()>(src, src_stride, dst, dst_stride, rows, d, scales, scale_stride, stream);
    });
  }
#endif
  if (r == rows) return;
  const GivenScales rest = given ? GivenScales{given->scale + r, given->inv + r} : GivenScales{};
  RowScales row_scales(src + r * src_stride, src_stride, rows - r, d, DType::kI8, scales + r * scale_stride,
                       scale_stride, given ? &rest : nullptr);
  for (std::int64_t i = 0; r < rows; ++r, ++i) {
    float scale = 0, inv = 0;
    row_scales.at(i, &scale, &inv);  // int8_row_scale
    QuantiseI8Row(src + r * src_stride, dst + r * dst_stride, d, scale, inv, stream);
  }
}

// int4: the row scale and the quantisation as int4_row_scale / encode_int4_row compute them
// (fmax skips NaN; q = nearest-even(x * inv) clamped to [-7, 7]; NaN -> 0), then each pair of
// int8 lanes (even, odd) becomes one byte (even in the low nibble). dst_stride is in elements.
void EncodeRowsI4(const float* src, std::int64_t src_stride, std::uint8_t* dst,
                  std::int64_t dst_stride, std::int64_t rows, std::int32_t d, float* scales,
                  std::int64_t scale_stride, const GivenScales* given) {
  const hn::ScalableTag<float> df;
  const std::int64_t N = static_cast<std::int64_t>(hn::Lanes(df));
  std::int64_t j0 = 0;
#if HWY_TARGET != HWY_SCALAR
  static const Pack4<std::int8_t> pack;
#endif
  RowScales row_scales(src, src_stride, rows, d, DType::kI4, scales, scale_stride, given);
  for (std::int64_t r = 0; r < rows; ++r) {
    const float* s = src + r * src_stride;
    std::uint8_t* o = dst + r * dst_stride / 2;
    float scale = 0, inv = 0;
    row_scales.at(r, &scale, &inv);  // int4_row_scale
    if (scale == 0.0f) {
      std::memset(o, 0, static_cast<std::size_t>(d / 2));
      continue;
    }
    if constexpr (hn::MaxLanes(df) >= 2) {
      const hn::Rebind<std::int8_t, decltype(df)> di8;
      const hn::Repartition<std::int16_t, decltype(di8)> di16;  // Lanes / 2: one per output byte
      const hn::Rebind<std::uint8_t, decltype(di16)> du8;
      j0 = d / N * N;
      const auto lo = hn::Set(df, -7.0f), hi = hn::Set(df, 7.0f);
      const RowQuotient<decltype(df)> quotient(df, scale, inv);
      const auto quantise = [&](std::int64_t j) {
        const auto y = quotient(hn::LoadU(df, s + j));
        return RoundSmall(df, hn::IfThenZeroElse(hn::IsNaN(y), hn::Min(hi, hn::Max(lo, y))));
      };
      // Lane pairs (even, odd) of int8 q as one int16 (odd << 8) | (even & 0xFF) -> one byte.
      const auto nibbles = [](auto d16, auto u) {
        return hn::Or(hn::And(u, hn::Set(d16, std::int16_t{0x0F})),
                      hn::And(hn::ShiftRight<4>(u), hn::Set(d16, std::int16_t{0xF0})));
      };
      std::int64_t j = 0;
#if HWY_TARGET != HWY_SCALAR
      if (pack.usable()) {
        const typename Pack4<std::int8_t>::D8 d8;
        const hn::Repartition<std::int16_t, decltype(d8)> d16;
        const hn::Rebind<std::uint8_t, decltype(d16)> d8h;
        for (; j + 4 * N <= j0; j += 4 * N) {
          const auto q = pack(quantise(j), quantise(j + N), quantise(j + 2 * N), quantise(j + 3 * N));
          hn::StoreU(hn::DemoteTo(d8h, nibbles(d16, hn::BitCast(d16, q))), d8h, o + j / 2);
        }
      }
#endif
      for (; j < j0; j += N) {
        const auto u = hn::BitCast(di16, hn::DemoteTo(di8, quantise(j)));
        hn::StoreU(hn::DemoteTo(du8, nibbles(di16, u)), du8, o + j / 2);
      }
    }
    if (j0 < d) encode_int4_row(s + j0, static_cast<std::int32_t>(d - j0), scale, o + j0 / 2);
  }
}

// fp8 with M mantissa bits and exponent bias B: bit-for-bit f32_to_fp8_* of x * inv. Normal
// range: nearest-even rounding of the fp32 bits to M mantissa bits after rebiasing the exponent
// (a mantissa carry rolls into the exponent, as the codes are monotonic); below the smallest
// normal: nearest-even of |y| * 2^(M - emin) (exact power-of-two scaling, hardware rounding).
// Then saturation to the largest finite code, infinity (E5M2 only) and NaN, and the sign.
template <int M, int B, int kMaxCode, int kInfCode, int kNanCode>
void EncodeRowsFp8(const float* src, std::int64_t src_stride, std::uint8_t* dst,
                   std::int64_t dst_stride, std::int64_t rows, std::int32_t d, float* scales,
                   std::int64_t scale_stride, DType dtype,
                   void (*encode_row)(const float*, std::int32_t, float, std::uint8_t*),
                   bool stream, const GivenScales* given) {
  const hn::ScalableTag<float> df;
  const hn::RebindToSigned<decltype(df)> di;
  const std::int64_t N = static_cast<std::int64_t>(hn::Lanes(df));
  const std::int64_t j0 = d / N * N;
  constexpr int kEmin = 1 - B;
  constexpr int kShift = 23 - M;
  const auto min_normal = hn::Set(df, std::ldexp(1.0f, kEmin));
  const auto sub_magic = hn::Set(df, std::ldexp(1.0f, kEmin + 23 - M));
  const auto rebias = hn::Set(di, (127 - B) << 23);
  const auto half_m1 = hn::Set(di, (1 << (kShift - 1)) - 1);
  const auto one = hn::Set(di, 1);
  const auto max_code = hn::Set(di, kMaxCode);
  const auto inf = hn::Set(df, std::numeric_limits<float>::infinity());
  RowScales row_scales(src, src_stride, rows, d, dtype, scales, scale_stride, given);
  for (std::int64_t r = 0; r < rows; ++r) {
    const float* s = src + r * src_stride;
    std::uint8_t* o = dst + r * dst_stride;
    float scale = 0, inv = 0;
    row_scales.at(r, &scale, &inv);  // fp8_*_row_scale
    if (scale == 0.0f) {
      std::memset(o, 0, static_cast<std::size_t>(d));
      continue;
    }
    const RowQuotient<decltype(df)> quotient(df, scale, inv);
    const auto encode = [&](std::int64_t j) {
      const auto y = quotient(hn::LoadU(df, s + j));
      const auto a = hn::Abs(y);
      const auto bits = hn::Sub(hn::BitCast(di, a), rebias);
      const auto normal = hn::ShiftRight<kShift>(
          hn::Add(bits, hn::Add(half_m1, hn::And(hn::ShiftRight<kShift>(bits), one))));
      // Below the smallest normal: a + 2^(emin + 23 - M) rounds a to the subnormal quantum
      // 2^(emin - M) (nearest even, exact otherwise) and leaves the count in the low bits.
      const auto sub = hn::Sub(hn::BitCast(di, hn::Add(a, sub_magic)), hn::BitCast(di, sub_magic));
      auto code = hn::IfThenElse(hn::RebindMask(di, hn::Lt(a, min_normal)), sub,
                                 hn::Min(normal, max_code));
      if constexpr (kInfCode != kMaxCode) {  // E4M3's inf saturates to max through the Min
        code = hn::IfThenElse(hn::RebindMask(di, hn::Eq(a, inf)), hn::Set(di, kInfCode), code);
      }
      code = hn::IfThenElse(hn::RebindMask(di, hn::IsNaN(y)), hn::Set(di, kNanCode), code);
      const auto sign = hn::And(hn::ShiftRight<24>(hn::BitCast(di, y)), hn::Set(di, 0x80));
      return hn::Or(code, sign);
    };
    StoreCodes(encode, o, j0, stream);
    if (j0 < d) encode_row(s + j0, static_cast<std::int32_t>(d - j0), scale, o + j0);
  }
}

HWY_INLINE void EncodeRowsOf(const float* src, std::int64_t src_stride, void* dst, std::int64_t dst_stride,
                             std::int64_t rows, std::int32_t d, DType dtype, float* scales,
                             std::int64_t scale_stride, bool stream,
                             const GivenScales* given = nullptr) {
  switch (dtype) {
    case DType::kF32:
      EncodeRowsF32(src, src_stride, static_cast<float*>(dst), dst_stride, rows, d, stream);
      break;
    case DType::kF16:
      EncodeRowsF16(src, src_stride, static_cast<std::uint16_t*>(dst), dst_stride, rows, d, stream);
      break;
    case DType::kBF16:
      EncodeRowsBF16(src, src_stride, static_cast<std::uint16_t*>(dst), dst_stride, rows, d, stream);
      break;
    case DType::kI8:
      EncodeRowsI8(src, src_stride, static_cast<std::int8_t*>(dst), dst_stride, rows, d, scales,
                   scale_stride, stream, given);
      break;
    case DType::kI4:
      EncodeRowsI4(src, src_stride, static_cast<std::uint8_t*>(dst), dst_stride, rows, d, scales,
                   scale_stride, given);
      break;
    case DType::kF8E4M3:
      EncodeRowsFp8<3, 7, 0x7E, 0x7E, 0x7F>(src, src_stride, static_cast<std::uint8_t*>(dst),
                                             dst_stride, rows, d, scales, scale_stride, dtype,
                                             encode_fp8_e4m3_row, stream, given);
      break;
    case DType::kF8E5M2:
      EncodeRowsFp8<2, 15, 0x7B, 0x7C, 0x7E>(src, src_stride, static_cast<std::uint8_t*>(dst),
                                              dst_stride, rows, d, scales, scale_stride, dtype,
                                              encode_fp8_e5m2_row, stream, given);
      break;
  }
}

void EncodeRows(const float* src, std::int64_t src_stride, void* dst, std::int64_t dst_stride,
                std::int64_t rows, std::int32_t d, DType dtype, float* scales,
                std::int64_t scale_stride, bool stream) {
  EncodeRowsOf(src, src_stride, dst, dst_stride, rows, d, dtype, scales, scale_stride, stream);
  if (stream) hwy::FlushStream();
}

// An int8 slot's rows from row `skip` on (the rows a four-row encoder left).
SlotRows Int8RowsFrom(const SlotRows& t, std::int64_t skip, std::int32_t d, std::int64_t dst_stride,
                      std::int64_t scale_stride) {
  return {t.src + skip * d, static_cast<std::int8_t*>(t.dst) + skip * dst_stride,
          t.scales ? t.scales + skip * scale_stride : nullptr};
}

// EncodeToken's rows of the dtypes with a row scale (and any dtype the paths there do not take),
// out of line: its scale blocks and the int8 encoders need a large, realigned stack frame.
HWY_NOINLINE void EncodeTokenScaled(const SlotRows& key, const SlotRows& value, std::int64_t dst_stride,
                                    std::int64_t rows, std::int32_t d, DType dtype, std::int64_t scale_stride) {
  const float format_max = ScaleFormatMax(dtype);
#if KVB_HAVE_REDUCE4 && HWY_NATIVE_FMA
  // Four rows at a time (one or two rows of each have taken EncodeToken's path), the rest as
  // below (all of them where the four-row encoder does not serve this head_dim).
  const std::int64_t done =
      dtype == DType::kI8 && rows >= 4
          ? WithHeadDim(d, [&](auto kD) { return EncodeTokenI8By4<kD()>(key, value, dst_stride, rows, d, scale_stride); })
          : 0;
  if (done == rows) return;
  if (done > 0)
    return EncodeTokenScaled(Int8RowsFrom(key, done, d, dst_stride, scale_stride),
                             Int8RowsFrom(value, done, d, dst_stride, scale_stride), dst_stride, rows - done, d,
                             dtype, scale_stride);
#endif
  if (format_max > 0.0f && rows <= kScaleBlock) {
    // The K and V rows' scales (max |x|, two divisions: a long chain per row) computed back to
    // back before either is quantised, so the chains overlap: a one-KV-head int8 append took
    // 20 ns per row as two calls' worth of scale-then-quantise.
    float k_scale[kScaleBlock], k_inv[kScaleBlock], v_scale[kScaleBlock], v_inv[kScaleBlock];
    BlockScales(key.src, d, rows, rows, d, format_max, key.scales, scale_stride, k_scale, k_inv);
    BlockScales(value.src, d, rows, rows, d, format_max, value.scales, scale_stride, v_scale, v_inv);
    const GivenScales k_given{k_scale, k_inv}, v_given{v_scale, v_inv};
    EncodeRowsOf(key.src, d, key.dst, dst_stride, rows, d, dtype, key.scales, scale_stride, false, &k_given);
    EncodeRowsOf(value.src, d, value.dst, dst_stride, rows, d, dtype, value.scales, scale_stride, false,
                 &v_given);
    return;
  }
  for (const SlotRows* t : {&key, &value})
    EncodeRowsOf(t->src, d, t->dst, dst_stride, rows, d, dtype, t->scales, scale_stride, false);
}

// A token's int8 K and V rows (an append) when there are one or two of each (one or two KV
// heads), with nothing between append_token and EncodeTokenI8Rows but the dispatch and a switch
// (as EncodeTokenF16). Returns the rows of each encoded: all, or 0 where the four-row encoder
// does not serve this head_dim or target, or rows is more than 2.
std::int64_t EncodeTokenI8(const float* k_src, std::int8_t* k_dst, float* k_scales, const float* v_src,
                           std::int8_t* v_dst, float* v_scales, std::int64_t dst_stride, std::int64_t scale_stride,
                           std::int64_t rows, std::int32_t d) {
#if KVB_HAVE_REDUCE4 && HWY_NATIVE_FMA
  const Pack4<std::int8_t>* pack = I8By4Packer(d);
  if (pack == nullptr || rows < 1 || rows > 2) return 0;
  const bool one = rows == 1;
  switch (d) {
    case 64:
      if (one) EncodeTokenI8Rows<64, 1>(k_src, k_dst, k_scales, v_src, v_dst, v_scales, dst_stride, scale_stride, d, *pack);
      else EncodeTokenI8Rows<64, 2>(k_src, k_dst, k_scales, v_src, v_dst, v_scales, dst_stride, scale_stride, d, *pack);
      break;
    case 128:
      if (one) EncodeTokenI8Rows<128, 1>(k_src, k_dst, k_scales, v_src, v_dst, v_scales, dst_stride, scale_stride, d, *pack);
      else EncodeTokenI8Rows<128, 2>(k_src, k_dst, k_scales, v_src, v_dst, v_scales, dst_stride, scale_stride, d, *pack);
      break;
    case 256:
      if (one) EncodeTokenI8Rows<256, 1>(k_src, k_dst, k_scales, v_src, v_dst, v_scales, dst_stride, scale_stride, d, *pack);
      else EncodeTokenI8Rows<256, 2>(k_src, k_dst, k_scales, v_src, v_dst, v_scales, dst_stride, scale_stride, d, *pack);
      break;
    default:
      if (one) EncodeTokenI8Rows<0, 1>(k_src, k_dst, k_scales, v_src, v_dst, v_scales, dst_stride, scale_stride, d, *pack);
      else EncodeTokenI8Rows<0, 2>(k_src, k_dst, k_scales, v_src, v_dst, v_scales, dst_stride, scale_stride, d, *pack);
  }
  return rows;
#else
  (void)k_src, (void)k_dst, (void)k_scales, (void)v_src, (void)v_dst, (void)v_scales, (void)dst_stride;
  (void)scale_stride, (void)rows, (void)d;
  return 0;
#endif
}

// fp16 and bf16 rows directly, and one or two int8 rows of each, in a small frame; the rest in
// EncodeTokenScaled's large, realigned one, which all of them had paid. Zen 5 guest, kvbench
// append, 32 layers, one KV head, 1 thread, 8 alternating rounds, time over main's (medians):
// int8 0.90-0.91 (faster in 8 of 8), fp16 0.95-0.96, bf16 0.96-0.99; eight KV heads 0.95-0.98
// (results/epyc-zen5-2c-kvm/append-copy/README.md). append_token's cached fp16 rows, and its bf16
// rows where the CPU has AVX512-BF16, no longer come here (kernels/cache_write.cc).
void EncodeToken(const SlotRows& key, const SlotRows& value, std::int64_t dst_stride,
                 std::int64_t rows, std::int32_t d, DType dtype, std::int64_t scale_stride, bool stream) {
  if (stream) {  // the rows' streaming path, K then V, and one fence for both
    // int8 rows of four or more KV heads take the token's four-row encoder (both blocks' scales
    // first), not the bulk one encode_rows runs: Zen 3 guest, kvbench append_streaming, Qwen3-0.6B,
    // 4 alternating rounds, time over the bulk encoder's: 0.77-0.91 (medians) at 141 and 18158
    // positions, 0.93-1.01 at 4 (results/epyc-zen3-2c-kvm/append-streaming/int8-token-ab/).
    std::int64_t done = 0;
#if KVB_HAVE_REDUCE4 && HWY_NATIVE_FMA
    if (dtype == DType::kI8 && rows >= 4)
      done = WithHeadDim(d, [&](auto kD) {
        return EncodeTokenI8By4<kD(), true>(key, value, dst_stride, rows, d, scale_stride);
      });
#endif
    for (const SlotRows* t : {&key, &value}) {
      if (dtype == DType::kBF16) {
        EncodeRowsBF16(t->src, d, static_cast<std::uint16_t*>(t->dst), dst_stride, rows, d, true, true);
      } else if (done < rows) {
        const SlotRows rest = done > 0 ? Int8RowsFrom(*t, done, d, dst_stride, scale_stride) : *t;
        EncodeRowsOf(rest.src, d, rest.dst, dst_stride, rows - done, d, dtype, rest.scales, scale_stride, true);
      }
    }
    hwy::FlushStream();
    return;
  }
  if (dtype == DType::kF16)  // append_token calls it directly (encode_f16_token)
    return EncodeTokenF16(key.src, static_cast<std::uint16_t*>(key.dst), value.src,
                          static_cast<std::uint16_t*>(value.dst), dst_stride, rows, d);
  if (dtype == DType::kBF16) {
    for (const SlotRows* t : {&key, &value})
      EncodeRowsBF16(t->src, d, static_cast<std::uint16_t*>(t->dst), dst_stride, rows, d, false);
    return;
  }
  // One or two int8 rows of each as one group of four.
  if (dtype == DType::kI8 && EncodeTokenI8(key.src, static_cast<std::int8_t*>(key.dst), key.scales, value.src,
                                           static_cast<std::int8_t*>(value.dst), value.scales, dst_stride,
                                           scale_stride, rows, d) == rows)
    return;
  EncodeTokenScaled(key, value, dst_stride, rows, d, dtype, scale_stride);
}

// NOLINTNEXTLINE(google-readability-namespace-comments)
}  // namespace HWY_NAMESPACE
}  // namespace kvb
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace kvb {

HWY_EXPORT(EncodeRows);
HWY_EXPORT(EncodeToken);
HWY_EXPORT(EncodeTokenF16);
HWY_EXPORT(EncodeTokenI8);

void encode_rows(const float* src, std::int64_t src_stride, void* dst, std::int64_t dst_stride,
                 std::int64_t rows, std::int32_t head_dim, DType dtype, float* scales,
                 std::int64_t scale_stride, bool stream) noexcept {
  HWY_DYNAMIC_DISPATCH(EncodeRows)(src, src_stride, dst, dst_stride, rows, head_dim, dtype, scales,
                                   scale_stride, stream);
}

void encode_token(const SlotRows& key, const SlotRows& value, std::int64_t dst_stride,
                  std::int64_t rows, std::int32_t head_dim, DType dtype,
                  std::int64_t scale_stride, bool stream) noexcept {
  HWY_DYNAMIC_DISPATCH(EncodeToken)(key, value, dst_stride, rows, head_dim, dtype, scale_stride, stream);
}

void encode_f16_token(const float* k_src, std::uint16_t* k_dst, const float* v_src, std::uint16_t* v_dst,
                      std::int64_t dst_stride, std::int64_t rows, std::int32_t head_dim) noexcept {
  HWY_DYNAMIC_DISPATCH(EncodeTokenF16)(k_src, k_dst, v_src, v_dst, dst_stride, rows, head_dim);
}

std::int64_t encode_i8_token(const float* k_src, std::int8_t* k_dst, float* k_scales, const float* v_src,
                             std::int8_t* v_dst, float* v_scales, std::int64_t dst_stride,
                             std::int64_t scale_stride, std::int64_t rows, std::int32_t head_dim) noexcept {
  return HWY_DYNAMIC_DISPATCH(EncodeTokenI8)(k_src, k_dst, k_scales, v_src, v_dst, v_scales, dst_stride,
                                             scale_stride, rows, head_dim);
}

void encode_rows(const float* src, std::int64_t src_stride, void* dst, std::int64_t dst_stride,
                 std::int64_t rows, std::int32_t head_dim, DType dtype, float* scales,
                 bool stream) noexcept {
  encode_rows(src, src_stride, dst, dst_stride, rows, head_dim, dtype, scales, 1, stream);
}

}  // namespace kvb
#endif  // HWY_ONCE
