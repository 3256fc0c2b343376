// Fast decode attention: GQA-grouped, tiled, single-pass online softmax, Highway runtime dispatch.
//
// Per tile of kTileFor<row type> positions (32 for 1-byte rows, else 16; kLongTile = 256 for fp32
// groups of one or two heads): (1) scores for every (row, head) of the group with register-blocked
// dot products (each K chunk is decoded once per block of heads, several rows in flight); (2) one
// vectorised exp over the tile's scores against each head's shift, rescaling only where the shift
// rises (kShiftedSoftmax: past a slack; else to each tile's maximum); (3) the V rows
// of the tile accumulated into the group's accumulators, register-blocked over heads and dims.
// fp16/bf16/int8 rows are decoded in registers (PromoteTo / ConvertTo); row scales (int8, fp8,
// int4) are folded into the scores (K) and the probabilities (V) so the decode is a plain
// widening convert. fp8 e5m2 is the top byte of an fp16, so it decodes with the hardware fp16
// converter; e4m3 becomes the fp16 of value * 2^-8 with two integer ops (subnormals included,
// exact); int4 bytes are widened to int32 and each nibble shifted to the top (q * 2^28), two
// chunks per load. The constant factors (2^8, 2^-28) are folded into the row scales with the
// others (kernel "decode units" below).
//
// int8 scores can instead come from AMX-INT8 (kernels/attention_amx.cc: the query split exactly
// into three int8 limbs, TDPBSSD against the K rows) where the CPU and OS allow it, the group has
// <= 16 heads and head_dim is a multiple of 64 up to 256. Softmax and the V accumulation stay
// here. Off unless KVBENCH_AMX=1: on the Emerald Rapids host it was 1.7x slower than this FMA path
// at G = 1 and about 1.1x faster at G = 8, and on 2026-12-06 1.4-1.7x slower at every G at 16
// threads (attention_amx.cc has the numbers); with the hook off,
// the FMA path measured unchanged on the AMD EPYC guest (int8 decode_step 47-52% of the DRAM
// ceiling before, 48-53% after, AVX2).
// The same limbs against K with AVX512-VNNI's VPDPBUSD (no converts) were timed as a bare loop on
// the Zen 5 guest: the score arithmetic 0.93x, the whole int8 loop 1.00x from L2 and 1.02x from
// DRAM (the V side and the lane sums untouched); on the EMR host 0.91x from L2 but 0.99x from
// DRAM at 1 thread and slower at 16 (8 of 9 rounds). So no such path
// (results/epyc-zen5-2c-kvm/kernel-rate/vnni-scores.md). The V side with VPDPBUSD (rows
// interleaved four at a time, the weights as exact three-limb uint8 fixed point) was timed the
// same way: from DRAM 0.95x the rate on the Zen 5, medians 1.08-1.09x within 2x spreads on the
// EMR host. Built into this kernel (kernel-rate/vnni-values-kernel.patch) decode_step int8 took
// 1.62x the time from DRAM on the Zen 5 and 0.95-1.02x on the EMR host (kernel-rate/
// vnni-values.md); no such path either.

#include "kernels/attention.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <type_traits>

#include "kernels/attention_amx.h"
#include "kernels/codecs.h"
#include "kernels/partial_merge.h"
#include "kernels/sw_prefetch.h"
#include "kernels/tile_order.h"

#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "kernels/attention.cc"
#include "hwy/foreach_target.h"  // IWYU pragma: keep
#include "hwy/highway.h"
#include "kernels/lane_reduce-inl.h"
#include "hwy/contrib/math/math-inl.h"
#include "hwy/cache_control.h"

#ifndef KVBENCH_KERNELS_ATTENTION_DETAIL_
#define KVBENCH_KERNELS_ATTENTION_DETAIL_  // foreach_target re-includes this file per target
namespace kvb::detail {

// Everything one dispatched call needs; built and validated by attention_partial().
struct PartialArgs {
  const void* k;        // K row of position t0
  const void* v;        // V row of position t0
  const float* kscale;  // int8/fp8/int4: scale of K row t0, else null
  const float* vscale;
  std::int64_t stride;  // elements between consecutive positions
  std::int64_t rows;    // t1 - t0
  std::int64_t window_rows;  // rows from t0 the prefetch window may reach: rows, or more (prefetch_to)
  std::int32_t head_dim;
  std::int32_t heads;   // query heads in this pass (<= kMaxHeadsPerPass)
  DType dtype;
  const float* q;       // [heads][head_dim]
  float scale;
  float* max;
  float* sum;
  float* acc;           // [heads][head_dim]
  const AmxInt8Scorer* amx = nullptr;  // int8 only: scores from AMX (tile state loaded), else FMA
  SwPrefetch prefetch = SwPrefetch::kT0;  // the hint of the window ahead (kernels/sw_prefetch.h)
  bool halves = false;  // TileOrder::kHalves: the range's two halves in turn (kernels/tile_order.h)
};

// Heads per pass bound the on-stack score tile; larger groups take several passes (each pass
// re-reads the rows, which only matters for groups larger than any current model uses).
inline constexpr std::int32_t kMaxHeadsPerPass = 32;
inline constexpr std::int64_t kTile = 16;  // positions per softmax tile (kTileFor: by row type)
// Software prefetch, kPrefetchBytes ahead of the reads, two schemes. Split (the default): K rows
// are prefetched while scoring and V rows while accumulating, so each stream keeps a steady
// window. Joint (rows of 128 bytes and less: int8, fp8 and int4 at head_dim 128): K and V rows
// both from the score phase (for short rows the V phase's prefetch call per row costs more than
// it saves when the rows come from L3).
// Measured on the Zen 5 EPYC guest, 1 thread, with this file's code and one setting changed at a
// time, four alternating rounds, cycles per (position, KV head) of Qwen3-0.6B-shaped attention
// over 28 layers x 8 KV heads (DRAM: 4x the LLC; L3: half of it):
//   fp32 (G = 2) split instead of joint 2 KB ahead: DRAM 139.5-143.5 -> 119.9-121.4; L3
//   63.4-69.3 -> 67.9-70.2 (joint had been the faster scheme for fp32 at G <= 2 while the
//   prefetches took a loop per row, see StreamPrefetch).
//   int8 joint 4 KB instead of 2 KB ahead: DRAM 34.9-36.1 -> 32.5-32.9, L3 33.7-35.1 ->
//   33.0-34.5; one layer and KV head at G = 1 from DRAM 29.9-30.3 -> 30.6-31.5.
//   Tried on scratch builds along the way, not better overall: split for int8 (faster from DRAM
//   at G = 1, slower from L3), split distances of 6 and 8 KB, a second prefetch into L2 8-32 KB
//   ahead, PREFETCHT1.
// A second window towards L2 only (2 KB into L1 and 8 KB into L2, or 4 KB and 8 or 16 KB), fp16,
// bf16 and int8 at G = 2, decode_step Qwen3-0.6B, 3-5 alternating rounds, time over this file's
// (medians; results/xeon-emr-16c-kvm/session-2026-11-27b/): the Emerald Rapids host from DRAM
// 0.82-1.06x at 1 thread and 0.87-1.00x at 16, but from its L3 at 16 threads 0.98-1.30x; the Zen
// 5 guest slower everywhere (DRAM 1.12-1.20x, L3 1.01-1.24x). Not taken: no one setting wins on
// both CPUs, and the EMR gain is within its round-to-round spread.
// Earlier (joint scheme, per-row loops, 2-vCPU Xeon VM / 16-vCPU Emerald Rapids host, DRAM,
// G = 2, % of the DRAM read ceiling): 8 KB ahead fp32 89-98, fp16 67, int8 62-64 / 56-67; no
// prefetch fp16 88-126, fp32 83-87, int8 33-46; 2 KB fp32 100-102 / 90-95, fp16 94-95 / 86-103,
// int8 62-64 / 63-82. Far prefetches hold L1 fill buffers for a whole DRAM latency each, so a
// long window starves the demand misses; without any, the 1-byte dtypes fall behind the hardware
// prefetcher.
// Which hint the window uses is SwPrefetch (kernels/sw_prefetch.h): PREFETCHT0 by default,
// PREFETCHT2 where that measured faster (the Zen 4 guest: 0.65-0.87x the time from DRAM at 1
// thread), or none. The shared next-tile window below keeps PREFETCHT1 under T0 and T2.
// A range's first rows come without the window (V's are read only once the first tile is
// scored). Prefetched at the start of each call (4 KB of K and V, or V's first 4 rows, with the
// row-scale lines of the range's first 256 rows), decode_step at 1 thread on the Zen 5 guest took
// fp32 1.05-1.16x and fp16 up to 1.24x the time at its LLC and L2 contexts, and int8 0.96-1.08x
// (8 rounds each; results/epyc-zen5-2c-kvm-508m/call-start-prefetch/): not taken.
// 8 KB ahead at 1 and 2 threads from DRAM (the narrow dtypes read less per core at 2), same guest,
// 8 rounds: 1 thread fp16 1.07x and bf16 1.18x the time (both significant), 2 threads 0.98-1.13x
// (results/epyc-zen5-2c-kvm-508m/pf-8k/): not taken.
// 8 KB and 2 KB ahead on the EMR host from DRAM at 1 and 16 threads (4 and 3 rounds): 0.85-1.14x
// and 0.93-1.22x the time, none significant (results/xeon-emr-16c-kvm/pf-distance/): not taken.
inline constexpr std::int64_t kPrefetchBytes = kPrefetchWindowBytes;
inline bool joint_prefetch(std::int64_t row_bytes) { return row_bytes <= 128; }
// TileOrder::kHalves reads each half this many bytes of K rows (then of V rows) at a time (at
// least kRowsBlock rows, at most half a tile): half a 4 KB page, so a half's stream is left
// with the rest of its page in flight while the other half's is read.
inline constexpr std::int64_t kHalvesSegmentBytes = 2048;
inline constexpr std::int64_t kHalvesPageBytes = 4096;
inline std::int64_t prefetch_rows_ahead(std::int64_t row_bytes) {
  return std::max<std::int64_t>(1, kPrefetchBytes / std::max<std::int64_t>(row_bytes, 1));
}

// Element types of the low-precision rows, so the kernel templates can tell them apart.
struct Fp8E4M3 { std::uint8_t bits; };
struct Fp8E5M2 { std::uint8_t bits; };
// Pointer to element `elem` of packed int4 data (two elements per byte, even one low). Pointer
// arithmetic counts elements, like the raw pointers of the other dtypes.
struct Int4Ptr {
  const std::uint8_t* base;
  std::int64_t elem;
  Int4Ptr operator+(std::int64_t n) const { return {base, elem + n}; }
};

}  // namespace kvb::detail
#endif  // KVBENCH_KERNELS_ATTENTION_DETAIL_

HWY_BEFORE_NAMESPACE();
namespace kvb {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;
using detail::kMaxHeadsPerPass;
using detail::kTile;
using detail::joint_prefetch;
using detail::kHalvesPageBytes;
using detail::kHalvesSegmentBytes;
using detail::prefetch_rows_ahead;
using detail::PartialArgs;
using detail::Fp8E4M3;
using detail::Fp8E5M2;
using detail::Int4Ptr;

// --- Row element access: vector chunk of Lanes(df) elements decoded to fp32, and scalar tail.
template <class D>
HWY_INLINE hn::Vec<D> LoadChunk(D df, const float* p) { return hn::LoadU(df, p); }
template <class D>
HWY_INLINE hn::Vec<D> LoadChunk(D df, const hwy::float16_t* p) {
  return hn::PromoteTo(df, hn::LoadU(hn::Rebind<hwy::float16_t, D>(), p));
}
template <class D>
HWY_INLINE hn::Vec<D> LoadChunk(D df, const hwy::bfloat16_t* p) {
  return hn::PromoteTo(df, hn::LoadU(hn::Rebind<hwy::bfloat16_t, D>(), p));
}
template <class D>
HWY_INLINE hn::Vec<D> LoadChunk(D df, const std::int8_t* p) {
  const hn::Rebind<std::int32_t, D> di32;
  return hn::ConvertTo(df, hn::PromoteTo(di32, hn::LoadU(hn::Rebind<std::int8_t, D>(), p)));
}

// e5m2 S.EEEEE.MM is exactly the high byte of an fp16.
template <class D>
HWY_INLINE hn::Vec<D> LoadChunk(D df, const Fp8E5M2* p) {
  const hn::Rebind<std::uint8_t, D> d8;
  const hn::Rebind<std::uint16_t, D> d16;
  const auto h = hn::ShiftLeft<8>(hn::PromoteTo(d16, hn::LoadU(d8, &p->bits)));
  return hn::PromoteTo(df, hn::BitCast(hn::Rebind<hwy::float16_t, D>(), h));
}
// e4m3 S.EEEE.MMM sign-extended to 16 bits and shifted left 7 is S.S.EEEE.MMM.0000000; clearing
// bit 14 gives the fp16 S.0EEEE.MMM0000000, whose value is the e4m3 value * 2^-8 (same bias
// difference for normals and subnormals). The NaN code S.1111.111 would read as +-1.875 (480,
// not an e4m3 value), so those lanes are set to all ones (an fp16 NaN) while still 16 bits wide.
// Measured (L3, one layer, G = 2): 190 us without NaN handling, 247 us fixing the fp32 lanes
// (abs, compare, blend), 227 us like this.
template <class D>
HWY_INLINE hn::Vec<D> LoadChunk(D df, const Fp8E4M3* p) {
  const hn::Rebind<std::int8_t, D> d8;
  const hn::Rebind<std::int16_t, D> d16;
  const auto x = hn::ShiftLeft<7>(
      hn::PromoteTo(d16, hn::LoadU(d8, reinterpret_cast<const std::int8_t*>(&p->bits))));
  const auto k7f = hn::Set(d16, std::int16_t{0x3F80});  // EEEE.MMM all ones
  const auto nan = hn::VecFromMask(d16, hn::Eq(hn::And(x, k7f), k7f));
  const auto h = hn::Or(hn::And(x, hn::Set(d16, static_cast<std::int16_t>(0xBFFF))), nan);
  return hn::PromoteTo(df, hn::BitCast(hn::Rebind<hwy::float16_t, D>(), h));
}
// int4 in element order (used for a single leftover chunk; whole pairs of chunks use LoadPair):
// Lanes(df) / 2 bytes HHHHLLLL -> 16-bit HHHH0000.LLLL0000, i.e. bytes holding 16 * q as int8;
// widened, shifted to the top of the int32 (q * 2^28) and converted. Chunks start at even elements.
template <class D>
HWY_INLINE hn::Vec<D> LoadChunk(D df, Int4Ptr p) {
  if constexpr (hn::MaxLanes(D()) >= 2) {
    const hn::Half<D> dh;
    const hn::Rebind<std::uint8_t, decltype(dh)> d8h;
    const hn::Rebind<std::uint16_t, decltype(dh)> d16h;
    const hn::Repartition<std::int8_t, decltype(d16h)> d8;
    const hn::Rebind<std::int32_t, D> di32;
    const auto w = hn::PromoteTo(d16h, hn::LoadU(d8h, p.base + (p.elem >> 1)));
    const auto nibbles = hn::And(hn::Or(hn::ShiftLeft<4>(w), hn::ShiftLeft<8>(w)),
                                 hn::Set(d16h, std::uint16_t{0xF0F0}));
    return hn::ConvertTo(df, hn::ShiftLeft<24>(hn::PromoteTo(di32, hn::BitCast(d8, nibbles))));
  } else {
    return hn::Set(df, 268435456.0f * static_cast<float>(int4_unpack(p.base, p.elem)));
  }
}

// int4, two chunks at once: Lanes(df) bytes hold 2 * Lanes elements. Widening each byte to an
// int32 and shifting its low (high) nibble to the top gives the EVEN (ODD) elements as q * 2^28:
// four integer ops and two converts per 2 * Lanes elements, against 2 x (six and one) in order. Callers pair them with queries and
// accumulators de-interleaved the same way (ConcatEven / ConcatOdd), since a dot product and an
// elementwise accumulation do not care about lane order.
template <class D>
HWY_INLINE void LoadPair(D df, Int4Ptr p, hn::Vec<D>* even, hn::Vec<D>* odd) {
  const hn::Rebind<std::uint8_t, D> d8;
  const hn::Rebind<std::int32_t, D> di32;
  const auto b = hn::PromoteTo(di32, hn::LoadU(d8, p.base + (p.elem >> 1)));
  *even = hn::ConvertTo(df, hn::ShiftLeft<28>(b));
  *odd = hn::ConvertTo(df, hn::ShiftLeft<24>(hn::And(b, hn::Set(di32, 0xF0))));
}
// bf16, two chunks at once: Lanes(df) 32-bit lanes hold 2 * Lanes elements; the even element
// is the low half (shifted up it is its fp32), the odd one the high half (masked). One integer op
// per chunk instead of a widening move plus a shift: the bf16 kernel issues fewer vector uops per
// element, and at G = 2 those decode uops are a third of the work.
template <class D>
HWY_INLINE void LoadPair(D df, const hwy::bfloat16_t* p, hn::Vec<D>* even, hn::Vec<D>* odd) {
  const hn::RebindToUnsigned<D> du;
  const auto w = hn::LoadU(du, reinterpret_cast<const std::uint32_t*>(p));
  *even = hn::BitCast(df, hn::ShiftLeft<16>(w));
  *odd = hn::BitCast(df, hn::And(w, hn::Set(du, 0xFFFF0000u)));
}
template <class D, typename P>
constexpr bool Paired() {
  return (std::is_same_v<P, Int4Ptr> || std::is_same_v<P, const hwy::bfloat16_t*>) &&
         hn::MaxLanes(D()) >= 2;
}
#if HWY_TARGET == HWY_SCALAR  // single lanes: no ConcatEven/Odd; int4 takes the element-order path
template <class D, class V>
V ConcatEvenOrSelf(D, V, V lo) { return lo; }
template <class D, class V>
V ConcatOddOrSelf(D, V, V lo) { return lo; }
#else
template <class D, class V>
HWY_INLINE V ConcatEvenOrSelf(D d, V hi, V lo) { return hn::ConcatEven(d, hi, lo); }
template <class D, class V>
HWY_INLINE V ConcatOddOrSelf(D d, V hi, V lo) { return hn::ConcatOdd(d, hi, lo); }
#endif

// Decode units: what one unit of a chunk from LoadChunk is worth (folded into the row scales).
template <typename P>
constexpr float kDecodeUnit = 1.0f;
template <>
constexpr float kDecodeUnit<const Fp8E4M3*> = 256.0f;
template <>
constexpr float kDecodeUnit<Int4Ptr> = 1.0f / 268435456.0f;  // 2^-28

// Positions per softmax tile, by row type: 32 for the 1-byte rows (int8, fp8, int4), 16 for the
// rest. A longer tile spreads the per-tile work (lane sums, softmax, accumulator loads and
// stores) over more rows, which the cheapest rows to stream gain most from. Measured on the Zen 5
// EPYC, kvbench, 1 thread, two alternating rounds, 16 -> 32: decode_step Qwen3-0.6B int8 DRAM
// 26.6-26.8 -> 29.6-29.8 GB/s, L3 27.3-27.8 -> 29.8-30.3; attention (8 layers, 16384 positions)
// int8 G = 1 7.8-8.0 -> 7.2-7.3 ms, G = 8 unchanged; decode_step fp8/int4 DRAM and L3 2-9% faster
// (int4 DRAM 12.0-12.1 -> 12.9-13.0), their L2 rows (a few positions) up to 5% slower. fp32: L3 0-16% faster, DRAM 1%, but G = 8 2-7% slower; fp16 L3 9-11% faster
// but DRAM up to 5% slower in decode_step (kernel_bench from DRAM: fp16 9-30%, bf16 20-25%
// slower): they keep 16.
template <typename P>
constexpr std::int64_t kTileFor = kTile;
template <>
constexpr std::int64_t kTileFor<const std::int8_t*> = 32;
template <>
constexpr std::int64_t kTileFor<const Fp8E4M3*> = 32;
template <>
constexpr std::int64_t kTileFor<const Fp8E5M2*> = 32;
template <>
constexpr std::int64_t kTileFor<Int4Ptr> = 32;

// fp32 groups of one or two heads take tiles of kLongTile positions instead. Each tile ends in a
// chain that the next tile's FMAs wait behind (lane sums -> store -> max -> exp -> the V phase's
// broadcasts): 66-94 ns a tile on the Zen 5 guest (fp32, G = 1, 64 rows in L1 as 4 tiles against
// one). With one or two heads a tile's work is too short to hide it; a long tile pays it once
// per 256 rows. Larger groups keep the short tiles: their head passes re-read each tile's K rows,
// which must stay in L1, and their tile-wide prefetch window would grow with the tile.
// Measured on the Zen 5 guest, scratch builds of the AVX2/AVX3 targets, interleaved rounds, best
// of each, time with long tiles over time with short ones (1 thread unless said):
//   kernel_bench floor/ (one KV head), batches of 4 rounds, 64 positions (L1) / 512 (L2): fp32
//   G = 1 0.70-0.77 / 0.71-0.75, G = 2 0.81-0.82 / 0.79-0.80; fp16 0.72-0.81 / 0.66-0.71; bf16
//   0.73-0.80 / 0.75-0.78; int8 0.89-0.95 / 0.85-0.87.
//   decode_step Qwen3-0.6B at 36, 73 and 141 positions (the reference's LLC rows), two batches
//   of 3 rounds: fp32 0.83-1.07 (36 positions: 1.07 in one batch, 0.83 in the other), fp16
//   0.74-0.92, bf16 0.74-0.95, int8 0.83-0.98; 2 threads 0.72-1.01.
//   From DRAM, 1 thread, 4-5 rounds: fp32 0.93-1.03 (Qwen3-0.6B 4682 positions, llama-7b 256 and
//   2048). But fp16 1.21 and bf16 1.30 (Qwen3-0.6B, the guest in a fast stretch: 30 GB/s, near
//   its ceiling); llama-7b at 256 / 2048 positions fp16 1.13-1.28 / 1.11, bf16 1.05-1.10 / 1.12,
//   int8 1.06 / 1.18; the Emerald Rapids host, 5 rounds: fp32 0.87, fp16 1.19, bf16 1.20, int8
//   1.01. So the narrower dtypes keep the short tiles until their DRAM streams are understood.
//   Ruled out since (results/epyc-zen5-2c-kvm-508m/kernel-floor/README.md): the idle stream
//   (K and V prefetched together), the window's depth (8 KB), and the other stream's next rows
//   prefetched towards L2; each left long tiles slower from DRAM.
//   Tiles of 512 and 1024 timed as 256 in floor/ (0.65-0.86 against 0.70-0.87).
//   The fp32-only build, 4 rounds: decode_step at the LLC rows 0.81-0.95, from DRAM 0.97-0.99.
// The other dtypes take one long tile where a range holds at most kLongTile rows: from DRAM
// nothing changes (its ranges are longer), while short ranges pay one tile's chain instead of
// several: the Zen 5's LLC rows (73 and 141 positions per KV head), and the EMR host's at 16
// threads (438 and 851 positions x 8 KV heads split 16 ways: 219 and 425 per thread).
// decode_step Qwen3-0.6B, time over the short tiles per round (session-2026-11-27b/onelong.md):
//   Zen 5 guest, 1 thread, 8 rounds over two batches: fp16 0.68-0.88, bf16 0.71-0.99, int8
//   0.80-1.07.
//   EMR host, 16 threads, 4 + 4 rounds on two lent machines, each round's ratio (median of the
//   8): fp16 0.73-1.14 (0.98), bf16 0.91-1.15 (0.97), int8 0.85-1.13 (1.05). Its 1-thread LLC
//   ranges (438, 851) keep the short tiles, so its 1-thread ratios time the same code twice and
//   show its spread: 0.46-1.51 (medians 0.77-1.02).
//   Prefetching a long tile's 1-byte rows split instead of jointly (V from the V phase) was no
//   better (Zen 5 int8 L3 0.79-1.36, EMR 0.60-1.59).
inline constexpr std::int64_t kLongTile = 256;
inline constexpr std::int32_t kLongTileHeads = 2;
template <typename P>
constexpr bool kLongTiles = std::is_same_v<P, const float*>;
// Heads a tile of kT positions holds scores for (the score buffer is [heads][kT] on the stack).
template <std::int64_t kT>
constexpr std::int32_t kTileHeads = kT >= kLongTile ? kLongTileHeads : kMaxHeadsPerPass;

HWY_INLINE float LoadScalar(const float* p) { return *p; }
HWY_INLINE float LoadScalar(const hwy::float16_t* p) {
  std::uint16_t bits;
  std::memcpy(&bits, p, sizeof(bits));
  return f16_to_f32(bits);
}
HWY_INLINE float LoadScalar(const hwy::bfloat16_t* p) {
  std::uint16_t bits;
  std::memcpy(&bits, p, sizeof(bits));
  return bf16_to_f32(bits);
}
HWY_INLINE float LoadScalar(const std::int8_t* p) { return static_cast<float>(*p); }
// Same decode units as LoadChunk.
HWY_INLINE float LoadScalar(const Fp8E4M3* p) { return fp8_e4m3_to_f32(p->bits) * (1.0f / 256.0f); }
HWY_INLINE float LoadScalar(const Fp8E5M2* p) { return fp8_e5m2_to_f32(p->bits); }
HWY_INLINE float LoadScalar(Int4Ptr p) {
  return 268435456.0f * static_cast<float>(int4_unpack(p.base, p.elem));
}

// Byte address of a row pointer (prefetch).
template <typename T>
HWY_INLINE const char* BytePtr(const T* p) { return reinterpret_cast<const char*>(p); }
HWY_INLINE const char* BytePtr(Int4Ptr p) { return reinterpret_cast<const char*>(p.base + (p.elem >> 1)); }

// Towards L2 only (PREFETCHT1 on x86, PLDL2KEEP on Arm): for the shared next-tile window, see
// PartialTyped. Highway has no hint for it.
HWY_INLINE void PrefetchL2(const char* p) { __builtin_prefetch(p, 0, 2); }
// SwPrefetch::kT2's hint (PREFETCHT2, PLDL3KEEP) for the window ahead of the reads.
HWY_INLINE void PrefetchT2(const char* p) { __builtin_prefetch(p, 0, 1); }

// Bytes between rows `stride` elements apart.
template <typename P>
constexpr std::int64_t StrideBytes(std::int64_t stride) {
  if constexpr (std::is_same_v<P, Int4Ptr>) {
    return stride / 2;
  } else {
    return stride * static_cast<std::int64_t>(sizeof(std::remove_pointer_t<P>));
  }
}

template <typename P>
HWY_INLINE P RowPtr(const void* p) { return static_cast<P>(p); }
template <>
HWY_INLINE Int4Ptr RowPtr<Int4Ptr>(const void* p) { return {static_cast<const std::uint8_t*>(p), 0}; }

// Register blocking. 512-bit targets have 32 vector registers, narrower ones 16. Measured (2-vCPU
// Xeon VM, 1 thread, L1-resident rows, G = 8, cycles per cached position, alternating runs):
// 4 heads x 4 rows (this) 159-176; 8 heads x 2 rows for the scores (one K decode for all heads)
// 180-213; 8 heads x 2 chunks for the values 3-5% faster, within noise. The kernel sits at about
// 70% of its port-bound uop count, where an isolated FMA loop of this shape reaches 65-70% of peak.
// Tried for fp32 groups of 4-16 heads (heads-in-lanes.diff in results/xeon-emr-16c-kvm/heads-in-lanes/):
// the heads in the lanes (the query transposed once per call, each row's dims broadcast against
// it, one accumulator per row, no lane sums; the K rows read once, not once per head pass). EMR
// floor/ G = 8 from L2 0.97-1.00x the time, 1.08x at 64 positions (the transpose per call);
// Zen 3 about 0.98x; with tiles of 64 positions instead of 16, G = 8 from DRAM 1.17x at 16 threads
// (8 rounds, p_holm 0.002). So the lane sums are not what holds G = 8 at half the FMA peak.
constexpr int kHeadsBlock = HWY_MAX_BYTES >= 64 ? 4 : 2;
constexpr int kRowsBlock = 4;
constexpr int kChunksBlock = 4;
// Groups of one or two heads on 512-bit targets accumulate 8 chunks at once (16 accumulators at
// most; bf16 and int4 keep 2 pairs of chunks), so each V row is read in one sweep instead of two
// half-row passes over the tile: the two-pass order (lines 0-3 of every row, then lines 4-7) is
// not sequential, and the hardware prefetcher streams it worse. Measured on the Zen 5 EPYC guest, kernel_bench, 1 thread, G = 2,
// one layer streamed from DRAM (16384 positions), alternating binaries, 2 rounds: fp32 G = 2
// 5114-5117 -> 4724-4843 us, G = 1 4774-5136 -> 4219-4375 us; fp16, int8 and the L3-resident cases
// within noise (2%). The pass of three heads (kTripleHeads) sweeps 8 chunks too: 24 accumulators,
// 3 probabilities and the row's chunk fit 32 registers.
template <int H>
constexpr int kChunksBlockFor = H <= 3 && HWY_MAX_BYTES >= 64 ? 8 : kChunksBlock;
// On targets of blocks of 2 heads (256-bit and narrower), a group of three heads (Llama 3.2 3B)
// makes one pass of three instead of a pair and a single one, for fp32 and fp16 rows: each K and
// V chunk loaded feeds three heads, and a tile takes one pass, not two. 12 accumulators and 3
// query vectors fill an AVX2 core's 16 registers, so the dtypes whose loads take more (bf16's
// pairs, int8's conversion) keep pair plus single. Measured on the Zen 3 guest (AVX2), attention
// at 1 thread, 28 layers, time with over without (results/epyc-zen3-2c-kvm/triple-heads/):
//   one scratch build switching it, 10 alternating rounds, G = 3 (24 q / 8 KV heads) from DRAM
//   fp32 0.79 (faster in 10 of 10, p_holm 0.014), fp16 0.85 (9 of 10), from L3 0.91 / 0.84;
//   bf16 1.07-1.23, int8 1.16-1.17 (slower in 10 of 10 from DRAM): left out;
//   a build with it against main's, 8 rounds: G = 3 fp32 0.83 from DRAM (faster in 7 of 8) and
//   1.06 from L3 (2 of 8), fp16 0.91 / 0.85 (5 and 7 of 8); G = 2, 4 and 6 1.00-1.18 (unchanged
//   code: the spread of two builds on this guest).
// The last three heads of a larger odd group as one pass did not pay: G = 7 (28 q / 4 KV heads)
// fp32 1.01-1.04 in the first A/B and 1.13 / 1.23 (DRAM / L3, slower in 8 of 8) in the second,
// fp16 0.82-0.99; so G = 3 only.
// On 512-bit targets (blocks of 4 heads, 32 registers) G = 3 was a pair and a single as well;
// there every dtype makes the pass of three.
// One scratch build switching it (KVB_H3), same shapes, LLC held at 32 / 64 MiB, time with over
// without (results/epyc-zen5-2c-kvm/triple-heads/); G = 4 (code not touched) the control:
//   Zen 5 guest, 1 thread, 8 rounds: G = 3 from L3 fp32 0.68 (8 of 8, p_holm 0.027), fp16 0.85,
//   bf16 0.90, int8 0.90; from DRAM 0.88-0.95, fp16 1.07 (2 of 8); control 0.96-1.02;
//   2 threads, 8 rounds: G = 3 0.71-0.96, control 1.03-1.16 (the new arm's runs drifted slower);
//   EMR host, 1 thread, 5 rounds: L3 0.85-0.92, DRAM fp16 0.90, bf16 0.92, int8 0.84, fp32 1.06;
//   control 0.93-1.06; 16 threads, 4 rounds: 0.82-0.94, fp32 DRAM 1.04; control 0.97-1.14.
// There a group of 4k + 3 heads (G = 7: Qwen2.5-7B, 28 q / 4 KV) ends in the pass of three too:
// k + 1 passes over each tile, not k + 2. One scratch build switching it
// (results/epyc-zen5-2c-oxide/tail-of-three/), Zen 5 guest, 1 thread, 28 layers, 4 KV heads, 8
// rounds, G = 7 time with over without: from L3 (96 positions) fp32 0.83, bf16 0.88, fp16 and
// int8 0.91; from DRAM (4096) bf16 0.86, fp16 and int8 0.91 (each faster in 8 of 8), fp32 0.96
// (6 of 8); G = 8 (control) 0.99-1.00. G = 6 as 3 + 3 instead of 4 + 2 did not pay: fp32 0.88
// from L3 but 1.19 from DRAM, bf16 1.09, fp16 and int8 0.96-1.02; so 4 + 2 stays. G = 5 as
// 3 + 2 instead of 4 + 1 was level (0.93-1.10, none significant): 4 + 1 stays.
// fp8 and int4 rows, whose decode per chunk costs more, gained most (one scratch build switching
// them, same guest and shapes, 8 rounds, time with over without and over the G = 4 control's
// ratio of the round): G = 3 0.67-0.77 (faster in 8 of 8 rounds), G = 7 0.80-0.93.
// On 2-head (AVX2) targets fp8 takes it too: the AVX2 code on the Zen 5 guest (kvbench run
// --simd-target avx2), one scratch build switching it for every dtype, 28 layers, 12 q / 4 KV
// heads, 8 rounds, time with over without: fp8 e4m3 0.64 / 0.66 from DRAM / L3, e5m2 0.66 / 0.67
// (8 of 8 rounds, p_holm < 1e-4); G = 4 (control) 0.96-1.00. int4 1.03, int8 1.03-1.05 and bf16
// 1.14 did not gain, so they keep a pair and a single there (results/epyc-zen5-2c-oxide/avx2-triple/).
// There fp8 also ends every odd group above three in it (G = 5 as 2 + 3, G = 7 as 2 + 2 + 3: one
// pass fewer, one decode of each chunk fewer): the same guest's AVX2 code, one scratch build
// switching it, 8 layers, 4 KV heads, 8 rounds, time with over without, L3 / DRAM: e4m3 G = 5
// 0.78 / 0.78, G = 7 0.83 / 0.90; e5m2 G = 5 0.78 / 0.80, G = 7 0.85 / 0.84 (8 of 8 rounds, p_holm
// <= 0.011); G = 4 (control) 0.99-1.06. fp32 and fp16 keep 2 + ... + 1 (G = 7 as 2 + 2 + 3 did
// not pay on the Zen 3 guest's AVX2 core; results/epyc-zen3-2c-kvm/triple-heads/).
template <typename P>
constexpr bool kFp8Rows = std::is_same_v<P, const Fp8E4M3*> || std::is_same_v<P, const Fp8E5M2*>;
template <typename P>
constexpr bool kTripleHeads = kHeadsBlock == 4 || std::is_same_v<P, const float*> ||
                              std::is_same_v<P, const hwy::float16_t*> || kFp8Rows<P>;

// Lane sums of four vectors in one 128-bit vector [sum a0, sum a1, sum a2, sum a3]
// (lane_reduce-inl.h).
#if KVB_HAVE_REDUCE4
template <class D, class V = hn::Vec<D>>
HWY_INLINE hn::Vec<hn::Full128<float>> Sum4(D d, V a0, V a1, V a2, V a3) {
  return Reduce4(d, a0, a1, a2, a3, [](auto x, auto y) { return hn::Add(x, y); });
}
#endif

// v as a register. GCC folds a vector load into each FMA that uses it (a memory operand apiece),
// so a vector that several FMAs share was loaded once per FMA: an fp32 V chunk once per head (on
// AVX-512 16 loads of 64 bytes and 4 broadcasts per 16 FMAs at 4 heads x 4 chunks), a K chunk once
// per head, a query chunk once per row of the block, a p broadcast once per chunk. The empty asm
// makes the loaded value a register operand, read once.
// Measured (kernel_bench floor/, one KV head, rows in L1 or L2: the arithmetic alone; best of 10
// repetitions per round, best round over main's best):
//   V chunks (results/xeon-emr-16c-kvm/heads-in-lanes/): EMR host, 4 rounds, fp32 G = 2 0.88
//   (512 positions) and 0.89 (64), G = 8 0.95-0.96, G = 1 1.00; Zen 3 guest G = 2 0.83-0.86.
//   decode_step Qwen3-0.6B from L2, the LLC and DRAM, 1 and 16 threads (EMR, 8 rounds): no row
//   moved significantly (fp32 medians 0.89-1.03).
//   Then the K, query and p operands (results/xeon-emr-16c-kvm/operands-in-registers/; in the
//   four AVX3 fp32 kernels, FMAs with a memory operand 2055 -> 1082, of them 552 -> 62 on an
//   address loaded within the 24 instructions before): Zen 3 guest (AVX2),
//   12 rounds, fp32 G = 2 and G = 8 at 512 positions 0.91 and 0.92 (0.88-0.93 in 20 of 24
//   rounds); EMR host, two calls of 4 and 6 rounds, fp32 G = 1, 2, 8 0.96-1.02, fp16, bf16, int8
//   G = 8 0.97-1.01; the GQA rows from DRAM (G = 1 and 8, 16 threads, 6 rounds) unchanged. So the
//   AVX-512 core was not load-bound here; the AVX2 one was.
template <class V>
HWY_INLINE V InRegister(V v) {
#if HWY_ARCH_X86 && HWY_TARGET != HWY_SCALAR && HWY_TARGET != HWY_EMU128
  asm("" : "+v"(v.raw));
#endif
  return v;
}

// fp32 rows of C vectors (4 or 8: head_dim 64 or 128 on 512-bit targets) for groups of up to 2
// heads: the query in registers, and the block's rows read two at a time, chunk by chunk, instead
// of chunk j of all R rows, then chunk j + 1 (the general order below, which walks 2 KB of fp32
// rows 512 bytes apart at a time). The loops are unrolled by pragma: left to GCC they kept the
// accumulators on the stack (66 zmm spills in the int8 kernel), which made this order look
// slower. Measured with clean binaries, alternating, decode_step Qwen3-0.6B, 1 thread, GB/s,
// chunk order -> this (results/epyc-zen5-2c-kvm/score-order/):
//   Zen 5, 6 rounds: fp32 DRAM 31.4-37.1 -> 33.3-38.5 (higher in all 6), L3 56.3-66.6 ->
//     57.1-64.6; fp16 and int8 unchanged (3 rounds: DRAM 35.8-41.8 -> 39.5-40.6 and 31.0-33.5
//     -> 32.2-33.8). The fp32-only build against the chunk order, 2 more rounds: DRAM
//     38.4-38.6 -> 39.2-39.3, L3 67.5-69.0 -> 66.2-68.3.
//   EMR, 3 rounds: fp32 DRAM 11.8-17.1 -> 14.2-15.2, L3 12.7-17.9 -> 14.0-18.6; but int8 DRAM
//     11.4-11.8 -> 8.8-11.2 and L3 11.6-11.9 -> 8.8-11.4, fp16 DRAM 13.5-13.8 -> 12.0-13.8.
// So fp32 only. bf16 and int4 (chunk pairs) lost from L3 on the Zen 5 with either row order
// before the pragmas; groups of 4 heads would need 32 query registers.
template <class D, typename P, int H>
constexpr bool kRowPairsInOrder() {
  return HWY_MAX_BYTES >= 64 && H <= 2 && std::is_same_v<P, const float*>;
}
template <int C, int R, int H, class D, typename P>
HWY_INLINE void ScoreRowPairs(D df, P k, std::int64_t stride, std::int32_t d, const float* q,
                              hn::Vec<D>* acc) {
  const std::int64_t N = static_cast<std::int64_t>(hn::Lanes(df));
  hn::Vec<D> qv[H * C];
#pragma GCC unroll 16
  for (int h = 0; h < H; ++h)
#pragma GCC unroll 16
    for (int c = 0; c < C; ++c) qv[h * C + c] = InRegister(hn::LoadU(df, q + h * d + c * N));
#pragma GCC unroll 16
  for (int r0 = 0; r0 < R; r0 += 2)
#pragma GCC unroll 16
    for (int c = 0; c < C; ++c)
#pragma GCC unroll 16
      for (int r = r0; r < R && r < r0 + 2; ++r) {
        hn::Vec<D> kv = LoadChunk(df, k + r * stride + c * N);
        if constexpr (H > 1) kv = InRegister(kv);
#pragma GCC unroll 16
        for (int h = 0; h < H; ++h) acc[r * H + h] = hn::MulAdd(kv, qv[h * C + c], acc[r * H + h]);
      }
}

// A pair of chunks of the query (2 x Lanes(df) floats) as its even and its odd elements, the
// order LoadPair decodes the rows in.
template <class D>
HWY_INLINE void LoadQueryPair(D df, const float* q, hn::Vec<D>* even, hn::Vec<D>* odd) {
  const std::int64_t N = static_cast<std::int64_t>(hn::Lanes(df));
  const hn::Vec<D> q0 = hn::LoadU(df, q);
  const hn::Vec<D> q1 = hn::LoadU(df, q + N);
  *even = ConcatEvenOrSelf(df, q1, q0);
  *odd = ConcatOddOrSelf(df, q1, q0);
}

// Scores for R rows x H heads: s[h][r] = scale * rowscale * (q_h . k_r).
// kQSplit (rows decoded in pairs of chunks): q holds each pair of chunks de-interleaved already
// (SplitQueryPairs), else the pairs are de-interleaved here.
template <int R, int H, std::int64_t kT, bool kQSplit, class D, typename P>
HWY_INLINE void ScoreBlock(D df, P k, std::int64_t stride, std::int32_t d,
                           const float* q, float* s_rows /* [H][kT] */, float scale,
                           const float* kscale) {
  const std::int64_t N = static_cast<std::int64_t>(hn::Lanes(df));
  hn::Vec<D> acc[R * H];
  for (int i = 0; i < R * H; ++i) acc[i] = hn::Zero(df);
  std::int64_t j = 0;
  if constexpr (kRowPairsInOrder<D, P, H>()) {
    if (d == 8 * N) {
      ScoreRowPairs<8, R, H>(df, k, stride, d, q, acc);
      j = d;
    } else if (d == 4 * N) {
      ScoreRowPairs<4, R, H>(df, k, stride, d, q, acc);
      j = d;
    }
  }
  if constexpr (Paired<D, P>()) {
    for (; j + 2 * N <= d; j += 2 * N) {
      hn::Vec<D> qe[H], qo[H];
      for (int h = 0; h < H; ++h) {
        if constexpr (kQSplit) {
          qe[h] = InRegister(hn::LoadU(df, q + h * d + j));
          qo[h] = InRegister(hn::LoadU(df, q + h * d + j + N));
        } else {
          LoadQueryPair(df, q + h * d + j, &qe[h], &qo[h]);
        }
      }
      for (int r = 0; r < R; ++r) {
        hn::Vec<D> ke, ko;
        LoadPair(df, k + r * stride + j, &ke, &ko);
        for (int h = 0; h < H; ++h) {
          acc[r * H + h] = hn::MulAdd(ke, qe[h], acc[r * H + h]);
          acc[r * H + h] = hn::MulAdd(ko, qo[h], acc[r * H + h]);
        }
      }
    }
  }
  for (; j + N <= d; j += N) {
    hn::Vec<D> qv[H];
    for (int h = 0; h < H; ++h) qv[h] = InRegister(hn::LoadU(df, q + h * d + j));
    for (int r = 0; r < R; ++r) {
      hn::Vec<D> kv = LoadChunk(df, k + r * stride + j);
      if constexpr (std::is_same_v<P, const float*> && H > 1) kv = InRegister(kv);
      for (int h = 0; h < H; ++h) acc[r * H + h] = hn::MulAdd(kv, qv[h], acc[r * H + h]);
    }
  }
  const std::int64_t full = j;
#if KVB_HAVE_REDUCE4
  if constexpr (R <= 4) {
    // Dims that do not fill a vector are added to the stored lane sums, so the accumulators
    // never go through memory (GCC spilled all R * H of them to the stack for the scalar tail
    // below, on every block). Measured as for kPrefetchBytes (Zen 5, four alternating rounds,
    // spilling -> not): Qwen3-0.6B int8 DRAM 33.2-34.8 -> 32.5-32.9, L3 34.5-36.5 -> 33.0-34.5,
    // fp16 L3 48.4-50.6 -> 46.7-47.9; one layer and KV head, fp32 G = 8 from L3 114.5-119.8 ->
    // 110.7-113.9.
    // Fewer than 4 rows (a tile's last rows) take zero sums for the missing ones: one vector
    // store per head instead of a lane sum and a scalar store per row, which also kept the
    // softmax's vector load of these scores waiting for L1 (no store forwarding).
    const hn::Full128<float> d4;
    auto row_scale = hn::Set(d4, scale);
    if (kscale != nullptr) {
      if constexpr (R == 4) {
        row_scale = hn::Mul(row_scale, hn::LoadU(d4, kscale));
      } else {
        HWY_ALIGN float ks[4] = {0.0f, 0.0f, 0.0f, 0.0f};  // no reads past the range's rows
        for (int r = 0; r < R; ++r) ks[r] = kscale[r];
        row_scale = hn::Mul(row_scale, hn::Load(d4, ks));
      }
    }
    const auto mul = full == d ? row_scale : hn::Set(d4, 1.0f);
    const hn::Vec<D> zero = hn::Zero(df);
    for (int h = 0; h < H; ++h) {
      // Rows past R take zero; the indices are clamped only so the array stays in bounds (a
      // lambda capturing acc by reference kept the accumulators in memory: 7 rows at G = 8
      // 1437-1446 -> 1830-1853 cycles per call).
      const auto sums = Sum4(df, acc[h], R > 1 ? acc[(R > 1 ? 1 : 0) * H + h] : zero,
                             R > 2 ? acc[(R > 2 ? 2 : 0) * H + h] : zero,
                             R > 3 ? acc[(R > 3 ? 3 : 0) * H + h] : zero);
      hn::StoreU(hn::Mul(sums, mul), d4, s_rows + h * kT);  // a tile holds whole blocks of 4
    }
    if (full < d) {
      for (int r = 0; r < R; ++r) {
        const float rs = kscale != nullptr ? scale * kscale[r] : scale;
        for (int h = 0; h < H; ++h) {
          float dot = s_rows[h * kT + r];
          for (std::int64_t i = full; i < d; ++i) dot += q[h * d + i] * LoadScalar(k + r * stride + i);
          s_rows[h * kT + r] = dot * rs;
        }
      }
    }
    return;
  }
#endif
  for (int r = 0; r < R; ++r) {
    const float row_scale = kscale != nullptr ? scale * kscale[r] : scale;
    for (int h = 0; h < H; ++h) {
      float dot = hn::GetLane(hn::SumOfLanes(df, acc[r * H + h]));
      for (std::int64_t j = full; j < d; ++j) dot += q[h * d + j] * LoadScalar(k + r * stride + j);
      s_rows[h * kT + r] = dot * row_scale;
    }
  }
}

// Rows [r0, r1) of one stream (K or V, clamped to the partial's rows) towards L1. Each stream is
// prefetched from its own phase (K while scoring, V while accumulating), so each keeps a steady
// window ahead of its own reads.
// With `with_v` the K prefetch also takes the V rows (the joint scheme, see kPrefetchBytes).
// Unpadded rows are one byte range, taken a line at a time without a loop per row: the per-row
// loops cost more than the prefetches themselves. Measured as for kPrefetchBytes (Zen 5, four
// alternating rounds, per-row loops -> one range): Qwen3-0.6B DRAM fp32 156-160 -> 120-121, int8
// 36.4-37.6 -> 32.5-32.9; L3 fp16 49.7-52.4 -> 46.7-47.9, int8 35.9-37.7 -> 33.0-34.5; one layer
// and KV head, fp32 G = 8 from DRAM 226-245 -> 176-181.
template <typename P>
struct StreamPrefetch {
  P rows_base;
  // No default member initializers, so the per-pass arrays in PartialTyped stay uninitialised
  // unless a tile is shared between head passes (built with Whole, then share_of). Initialising
  // the arrays (20 prefetchers) took a third of an empty call: Zen 5, fp32 G = 2, 176 -> 114
  // cycles per call.
  std::int64_t stride, rows, row_bytes;
  bool with_v;
  P v_base;
  bool t2;  // SwPrefetch::kT2: PREFETCHT2 instead of PREFETCHT0 for the whole window
  // This prefetcher takes share `part` of `parts` equal shares of every range it is given (see
  // PartialTyped: one share per head pass), towards L2 only. Set with share_of, which also works
  // out the share of the two ranges it is mostly given, one row (V) and kRowsBlock rows (K), so
  // those calls do not divide. Against two divisions per call (Zen 5, fp32 G = 8, one layer and
  // KV head, two alternating rounds, cycles per position): L2 126-130 -> 121-122, L3 129-135 ->
  // 122-124; from DRAM 155-162 -> 159-169 (three rounds), and kvbench attention, Qwen3-0.6B at
  // G = 8, 1 thread, 127-137 -> 132-135 ms: within their spread.
  std::int64_t part, parts;  // parts <= 1: the whole range
  std::uintptr_t row_lo, row_hi, block_lo, block_hi;
  // The whole of rows [0, rows) of one stream (and with v_base, the joint scheme's V rows).
  // SwPrefetch::kNone gives an empty range: every call returns at once.
  static StreamPrefetch Whole(P base, std::int64_t stride, std::int64_t rows, std::int64_t row_bytes,
                              SwPrefetch hint, bool with_v = false, P v_base = P{}) {
    return {base, stride, hint == SwPrefetch::kNone ? 0 : rows, row_bytes, with_v, v_base,
            hint == SwPrefetch::kT2, 0, 1, 0, 0, 0, 0};
  }
  void share_of(std::int64_t share, std::int64_t shares) {
    part = share;
    parts = shares;
    const auto row = static_cast<std::uintptr_t>(row_bytes), block = row * kRowsBlock;
    row_lo = row * part / parts;
    row_hi = row * (part + 1) / parts;
    block_lo = block * part / parts;
    block_hi = block * (part + 1) / parts;
  }
  HWY_INLINE void operator()(std::int64_t r0, std::int64_t r1) const {
    r1 = std::min(r1, rows);
    if (r0 >= r1) return;
    if (StrideBytes<P>(stride) == row_bytes) {
      const auto first = reinterpret_cast<std::uintptr_t>(BytePtr(rows_base + r0 * stride));
      const auto span = static_cast<std::uintptr_t>((r1 - r0) * row_bytes);
      std::uintptr_t lo = first, hi = first + span;
      if (parts > 1) {  // divisions only here: one per call cost fp16 3-4% at G = 8
        if (r1 - r0 == 1) {
          lo = first + row_lo;
          hi = first + row_hi;
        } else if (r1 - r0 == kRowsBlock) {
          lo = first + block_lo;
          hi = first + block_hi;
        } else {
          hi = first + span * (part + 1) / parts;
          lo = first + span * part / parts;
        }
      }
      lo &= ~std::uintptr_t{63};
      if (with_v) {  // line by line, K and V alternating
        const std::uintptr_t to_v = reinterpret_cast<std::uintptr_t>(BytePtr(v_base)) -
                                    reinterpret_cast<std::uintptr_t>(BytePtr(rows_base));
        if (t2) {
          for (std::uintptr_t line = lo; line < hi; line += 64) {
            PrefetchT2(reinterpret_cast<const char*>(line));
            PrefetchT2(reinterpret_cast<const char*>(line + to_v));
          }
        } else {
          for (std::uintptr_t line = lo; line < hi; line += 64) {
            hwy::Prefetch(reinterpret_cast<const char*>(line));
            hwy::Prefetch(reinterpret_cast<const char*>(line + to_v));
          }
        }
      } else if (parts > 1) {  // a loop per hint: one loop with the hint chosen per line took
        // fp32 G = 8 1.11x the time (Zen 5, 1 thread, 8 alternating rounds, medians). Unrolled 8
        // lines a step, these loops took fp32 1.10x the time from DRAM at 1 thread, fp16 and
        // bf16 1.17-1.25x; the K window in line with the fp32 score loads (as Sweep does for V)
        // 1.08x (Zen 5 guest, 8 rounds each; results/epyc-zen5-2c-kvm-508m/k-window-shape/).
        for (std::uintptr_t line = lo; line < hi; line += 64) PrefetchL2(reinterpret_cast<const char*>(line));
      } else if (t2) {
        for (std::uintptr_t line = lo; line < hi; line += 64) PrefetchT2(reinterpret_cast<const char*>(line));
      } else {
        for (std::uintptr_t line = lo; line < hi; line += 64)
          hwy::Prefetch(reinterpret_cast<const char*>(line));
      }
      return;
    }
    if (parts > 1) {  // padded rows: a share of the rows
      const std::int64_t n = r1 - r0;
      r1 = r0 + n * (part + 1) / parts;
      r0 += n * part / parts;
    }
    for (std::int64_t r = r0; r < r1; ++r) {
      const char* row = BytePtr(rows_base + r * stride);
      const char* vrow = with_v ? BytePtr(v_base + r * stride) : nullptr;
      for (std::int64_t b = 0; b < row_bytes; b += 64) {
        if (parts > 1) {
          PrefetchL2(row + b);
          if (with_v) PrefetchL2(vrow + b);
        } else if (t2) {
          PrefetchT2(row + b);
          if (with_v) PrefetchT2(vrow + b);
        } else {
          hwy::Prefetch(row + b);
          if (with_v) hwy::Prefetch(vrow + b);
        }
      }
    }
  }
};

// acc_h += sum_r p[h][r] * v_r for H heads over C chunks of N dims starting at dim j0.
// kLines (RowLines) instead of pf: row r prefetches the C lines of row r of `ahead`, PREFETCHT2
// (kLinesT2) or PREFETCHT0 (kLinesT0), in line with the FMAs.
enum RowLines { kNoLines, kLinesT2, kLinesT0 };
template <int H, int C, bool kPf, std::int64_t kT, int kLines = kNoLines, class D, typename P>
HWY_INLINE void AccumulateBlock(D df, P v, std::int64_t stride, std::int64_t rows,
                                std::int32_t d, std::int64_t j0, const float* p /* [H][kT] */,
                                float* acc, const StreamPrefetch<P>* pf = nullptr,
                                std::int64_t pf_row = 0, P ahead = P{}) {
  const std::int64_t N = static_cast<std::int64_t>(hn::Lanes(df));
  hn::Vec<D> a[H * C];
  for (int h = 0; h < H; ++h)
    for (int c = 0; c < C; ++c) a[h * C + c] = hn::LoadU(df, acc + h * d + j0 + c * N);
  for (std::int64_t r = 0; r < rows; ++r) {
    hn::Vec<D> pv[H];
    for (int h = 0; h < H; ++h) pv[h] = InRegister(hn::Set(df, p[h * kT + r]));
    if constexpr (kPf) (*pf)(pf_row + r, pf_row + r + 1);
    if constexpr (kLines != kNoLines) {
      const char* line = BytePtr(ahead + r * stride);
#pragma GCC unroll 16
      for (int c = 0; c < C; ++c) {
        if constexpr (kLines == kLinesT2) PrefetchT2(line + 64 * c);
        else hwy::Prefetch(line + 64 * c);
      }
    }
    const P row = v + r * stride + j0;
    for (int c = 0; c < C; ++c) {
      hn::Vec<D> vv = LoadChunk(df, row + c * N);
      if constexpr (std::is_same_v<P, const float*> && H > 1) vv = InRegister(vv);
      for (int h = 0; h < H; ++h) a[h * C + c] = hn::MulAdd(vv, pv[h], a[h * C + c]);
    }
  }
  for (int h = 0; h < H; ++h)
    for (int c = 0; c < C; ++c) hn::StoreU(a[h * C + c], df, acc + h * d + j0 + c * N);
}

// Pairs of chunks (int4, bf16): acc_h += sum_r p[h][r] * v_r for H heads over C pairs of 2N dims from
// j0, the accumulators kept de-interleaved per pair (N even dims, then N odd dims; PartialTyped
// restores element order at the end).
template <int H, int C, bool kPf, std::int64_t kT, class D, typename P>
HWY_INLINE void AccumulatePairs(D df, P v, std::int64_t stride, std::int64_t rows,
                                std::int32_t d, std::int64_t j0, const float* p, float* acc,
                                const StreamPrefetch<P>* pf = nullptr, std::int64_t pf_row = 0) {
  const std::int64_t N = static_cast<std::int64_t>(hn::Lanes(df));
  hn::Vec<D> a[H * 2 * C];
  for (int h = 0; h < H; ++h)
    for (int i = 0; i < 2 * C; ++i) a[h * 2 * C + i] = hn::LoadU(df, acc + h * d + j0 + i * N);
  for (std::int64_t r = 0; r < rows; ++r) {
    hn::Vec<D> pv[H];
    for (int h = 0; h < H; ++h) pv[h] = InRegister(hn::Set(df, p[h * kT + r]));
    if constexpr (kPf) (*pf)(pf_row + r, pf_row + r + 1);
    const P row = v + r * stride + j0;
    for (int c = 0; c < C; ++c) {
      hn::Vec<D> ve, vo;
      LoadPair(df, row + c * 2 * N, &ve, &vo);
      for (int h = 0; h < H; ++h) {
        a[h * 2 * C + 2 * c] = hn::MulAdd(ve, pv[h], a[h * 2 * C + 2 * c]);
        a[h * 2 * C + 2 * c + 1] = hn::MulAdd(vo, pv[h], a[h * 2 * C + 2 * c + 1]);
      }
    }
  }
  for (int h = 0; h < H; ++h)
    for (int i = 0; i < 2 * C; ++i) hn::StoreU(a[h * 2 * C + i], df, acc + h * d + j0 + i * N);
}

// One sweep over the rows for C chunks (kPairs: C pairs of chunks) from dim j; pf, if set, takes
// the V rows ahead along the way (compiled apart, so sweeps without it carry no per-row test).
template <int H, int C, bool kPairs, std::int64_t kT, class D, typename P>
HWY_INLINE void Sweep(D df, P v, std::int64_t stride, std::int64_t rows, std::int32_t d,
                      std::int64_t j, const float* p, float* acc, const StreamPrefetch<P>* pf,
                      std::int64_t pf_row) {
  if constexpr (kPairs) {
    if (pf) AccumulatePairs<H, C, true, kT>(df, v, stride, rows, d, j, p, acc, pf, pf_row);
    else AccumulatePairs<H, C, false, kT>(df, v, stride, rows, d, j, p, acc);
  } else {
    // fp32 sweeps over whole rows of 64-byte chunks take their one-row window as C prefetches in
    // the row loop, without StreamPrefetch's per-call checks and loop over lines (which GCC laid
    // out of line: a jump there and back per row); rows whose window row is past the range take
    // none. One binary with a runtime switch, arms alternating, time with over without
    // (results/epyc-zen4-2c-kvm/kernel-rate/knockout.md): Zen 4 guest (PREFETCHT2), kernel_bench
    // fast/fp32/ctx:16384 (G = 2, DRAM, 1 thread) median 0.91 over 8 rounds, 7 faster (fp16 and
    // int8, untouched, 0.98); decode_step fp32 from DRAM at 1 thread 0.72-0.94 in 4 rounds. EMR
    // host (PREFETCHT0), kernel_bench fp32 DRAM median 0.90 over 6 rounds, 5 faster.
    if constexpr (std::is_same_v<P, const float*> && hn::MaxLanes(D()) == 16) {
      if (pf && pf->parts <= 1 && j == 0 && C * static_cast<std::int64_t>(hn::Lanes(df)) == d) {
        const std::int64_t n = std::clamp<std::int64_t>(pf->rows - pf_row, 0, rows);
        const P ahead = pf->rows_base + pf_row * stride;
        const StreamPrefetch<P>* none = nullptr;
        if (n > 0) {  // n = 0: a range within the window's end, one sweep without lines
          if (pf->t2)
            AccumulateBlock<H, C, false, kT, kLinesT2>(df, v, stride, n, d, j, p, acc, none, 0, ahead);
          else
            AccumulateBlock<H, C, false, kT, kLinesT0>(df, v, stride, n, d, j, p, acc, none, 0, ahead);
        }
        if (n < rows)
          AccumulateBlock<H, C, false, kT>(df, v + n * stride, stride, rows - n, d, j, p + n, acc);
        return;
      }
    }
    if (pf) AccumulateBlock<H, C, true, kT>(df, v, stride, rows, d, j, p, acc, pf, pf_row);
    else AccumulateBlock<H, C, false, kT>(df, v, stride, rows, d, j, p, acc);
  }
}

// pf (the first head pass's, or each pass's share: see PartialTyped) prefetches from row pf_row
// on, the window ahead of the tile's reads, a row block at a time between the row blocks' FMAs
// instead of a whole tile in one burst (a burst fills the L1 miss buffers and stalls the FMAs
// behind it). Measured, kernel_bench CPU time, 1 layer, G = 2, two
// alternating runs: L3 fp16 227-284 -> 182-190 us, int8 141-150 -> 133; DRAM fp16 5.93 -> 5.31
// ms, int8 3.74 -> 3.03 ms, fp32 within noise.
template <int H, std::int64_t kT, bool kQSplit, class D, typename P>
HWY_INLINE void ScoreHeads(D df, P k, std::int64_t stride, std::int64_t rows,
                           std::int32_t d, const float* q, float* s, float scale,
                           const float* kscale, const StreamPrefetch<P>* pf = nullptr,
                           std::int64_t pf_row = 0) {
  std::int64_t r = 0;
  for (; r + kRowsBlock <= rows; r += kRowsBlock) {
    if (pf) (*pf)(pf_row + r, pf_row + r + kRowsBlock);
    ScoreBlock<kRowsBlock, H, kT, kQSplit>(df, k + r * stride, stride, d, q, s + r, scale,
                                           kscale ? kscale + r : nullptr);
  }
  if (pf && r < rows) (*pf)(pf_row + r, pf_row + rows);
  const P kr = k + r * stride;
  const float* ks = kscale ? kscale + r : nullptr;
  switch (rows - r) {  // the last 1-3 rows of a tile, as one block
    case 1: ScoreBlock<1, H, kT, kQSplit>(df, kr, stride, d, q, s + r, scale, ks); break;
    case 2: ScoreBlock<2, H, kT, kQSplit>(df, kr, stride, d, q, s + r, scale, ks); break;
    case 3: ScoreBlock<3, H, kT, kQSplit>(df, kr, stride, d, q, s + r, scale, ks); break;
    default: break;
  }
}

template <int H, std::int64_t kT, class D, typename P>
HWY_INLINE void AccumulateHeads(D df, P v, std::int64_t stride, std::int64_t rows,
                                std::int32_t d, const float* p, float* acc,
                                const StreamPrefetch<P>* pf = nullptr, std::int64_t pf_row = 0) {
  // pf rides with the first sweep over the rows only.
  const std::int64_t N = static_cast<std::int64_t>(hn::Lanes(df));
  const std::int64_t full = d / N * N;
  std::int64_t j = 0;
  constexpr int kChunks = kChunksBlockFor<H>;
  if constexpr (Paired<D, P>()) {
    constexpr int kPairsBlock = kChunksBlock / 2;  // 4 pairs for G <= 2 measured 1-5% slower
    for (; j + kPairsBlock * 2 * N <= d; j += kPairsBlock * 2 * N, pf = nullptr)
      Sweep<H, kPairsBlock, true, kT>(df, v, stride, rows, d, j, p, acc, pf, pf_row);
    for (; j + 2 * N <= d; j += 2 * N, pf = nullptr)
      Sweep<H, 1, true, kT>(df, v, stride, rows, d, j, p, acc, pf, pf_row);
  }
  for (; j + kChunks * N <= full; j += kChunks * N, pf = nullptr)
    Sweep<H, kChunks, false, kT>(df, v, stride, rows, d, j, p, acc, pf, pf_row);
  if constexpr (kChunks > kChunksBlock)
    for (; j + kChunksBlock * N <= full; j += kChunksBlock * N, pf = nullptr)
      Sweep<H, kChunksBlock, false, kT>(df, v, stride, rows, d, j, p, acc, pf, pf_row);
  for (; j < full; j += N, pf = nullptr)
    Sweep<H, 1, false, kT>(df, v, stride, rows, d, j, p, acc, pf, pf_row);
  if (pf) (*pf)(pf_row, pf_row + rows);  // head_dim below one vector: no sweep took it
  for (; j < d; ++j) {  // dims that do not fill a vector
    for (int h = 0; h < H; ++h) {
      float a = acc[h * d + j];
      for (std::int64_t r = 0; r < rows; ++r) a += p[h * kT + r] * LoadScalar(v + r * stride + j);
      acc[h * d + j] = a;
    }
  }
}

// The softmax's shift. Exact attention allows any shift of the scores before the exponentials
// (the sums and the accumulators take the same factor); the running maximum is one, but taking
// it makes every tile end in a chain: lane sums -> store -> the tile's maximum (a reduction per
// head) -> scalar compare -> exp -> the V phase's broadcasts. With kShiftedSoftmax each head keeps
// its shift until a score climbs more than kSoftmaxSlack above it, so a tile needs only one
// vector compare of all its scores against the shifts before its exponentials, and the rare
// tile that fails it raises the shifts to its maxima (the first tile always); the sums stay in
// vectors until the end of the range. The exponentials stay at most e^8 (2981): neither the sums
// nor the accumulators come near fp32's range.
// Measured (results/epyc-zen5-2c-kvm/kernel-rate/shifted-softmax.md; time with it over without,
// binaries alternating): Zen 5 guest, one KV head from L2 (kernel_bench floor/, 512 positions),
// fp32 G = 2 0.86-0.88, G = 8 0.90-0.92, fp16 G = 2 0.82-0.85, G = 8 0.85-0.86; decode_step
// Qwen3-0.6B at 1 thread, fp32 at half the LLC median 0.95-0.97, from DRAM 1.00; fp16 0.90 and
// 1.02. Emerald Rapids host, 1 and 16 threads: fp32 and fp16 medians 0.91-1.01 (attention fp32
// G = 1 1.08, rounds 0.70-1.23); but bf16 from DRAM 1.06-1.22 (slower in 11 of 12 rounds) and int8
// at its 1-thread LLC row 1.09-1.22, where on the Zen 5 the same form gained 0.92-0.98 from L2:
// so fp32 and fp16 only, the others keep each tile's maximum. Retried over 12b5ac3 (same file):
// the EMR host's DRAM and LLC rows at medians 0.95-1.02 this time, but the Zen 5's LLC rows slower,
// bf16 1.02-1.23 and int8 1.01-1.28 in 3 rounds.
template <typename P>
constexpr bool kShiftedSoftmax = std::is_same_v<P, const float*> || std::is_same_v<P, const hwy::float16_t*>;
inline constexpr float kSoftmaxSlack = 8.0f;

// e^x for the softmax's x = score - shift <= kSoftmaxSlack: Highway's range reduction and
// polynomial (impl::ExpImpl<float>, as hn::Exp uses them) without the steps that serve other x.
// n = round(x / ln 2) comes from one add of 1.5 * 2^23, whose low mantissa bits then hold n, and
// 2^n goes into the exponent field with one integer add (p in [0.7, 1.42] and -124 <= n <= 12
// keep the result normal), where hn::Exp converts with overflow fix-ups, builds two 2^n factors,
// multiplies twice and selects against its lower bound. x is clamped at -86: e^-86 = 4.4e-38 is
// nothing next to the running sum, which holds at least 1 from the shift's own score, and -inf
// (a partial tile's padding lanes) gives that instead of 0. x = 0 gives exactly 1.
template <class D, class V = hn::Vec<D>>
HWY_INLINE V ExpBounded(D d, V x) {
  const hn::RebindToSigned<D> di;
  hn::impl::ExpImpl<float> impl;
  const V kShifter = hn::Set(d, 12582912.0f);  // 1.5 * 2^23: sums in [2^23, 2^24) have ulp 1
  x = hn::Max(x, hn::Set(d, -86.0f));
  const V shifted = hn::MulAdd(x, hn::Set(d, 1.442695040888963407359924681f), kShifter);
  const V n = hn::Sub(shifted, kShifter);
  // r = x - n ln 2 with ln 2 in two parts, as impl.ExpReduce (which takes n as integers).
  V r = hn::MulAdd(n, hn::Set(d, -0.693145751953125f), x);
  r = hn::MulAdd(n, hn::Set(d, -1.428606765330187045e-6f), r);
  const V p = hn::Add(impl.ExpPoly(d, r), hn::Set(d, 1.0f));
  return hn::BitCast(d, hn::Add(hn::BitCast(di, p), hn::ShiftLeft<23>(hn::BitCast(di, shifted))));
}

// The row scales (int8, fp8, int4) are two more streams, K's and V's, of 4 bytes per row in
// arrays of their own: a line per 16 rows, which the window above does not cover. They are
// prefetched kScaleAhead rows ahead, towards L2 (a tile's scale lines are few and read once).
// This and ExpBounded (then for x <= 0), measured (results/epyc-zen5-2c-kvm/kernel-rate/exp-scales.md): kvbench
// decode_step, Qwen3-0.6B, 1 GiB, 1 thread, binaries alternating, time over main's. Zen 5: each
// alone within its spread (int8 medians 1.01 and 0.99 over 6 and 8 rounds), both together int8
// 0.957-0.988 in 7 of 8 rounds (median 0.971), fp8 e4m3 0.94-0.99 (0.962), int4 median 0.987,
// bf16 0.995. EMR host, 14 rounds: int8 median 0.947 at 1 thread, 1.02 at 16 (its spread). The
// phase harness (28 layers x 8 KV heads from DRAM, 1 thread) had put 4-9% of int8's time in the
// scale lines (read from L1 throughout: 0.91-0.96) and 2-8% in hn::Exp (none at all: 0.92-0.98);
// its rounds move +-8%, which chose the distance and hint here (512 rows into L2 0.94-0.98; into
// L1, 128 or 2048 rows ahead no better) but cannot resolve the landed code against main
// (0.95-1.09 over three rounds).
constexpr std::int64_t kScaleAhead = 512;
constexpr std::int64_t kScalesPerLine = 64 / sizeof(float);

// Rows decoded in pairs of chunks (bf16, int4) score against the query de-interleaved the same
// way (SplitQueryPairs): once per call, where G x head_dim fits kMaxSplitQuery floats (16 heads of
// 128 dims, 8 of 256), instead of two shuffles per head and pair of chunks in every block of
// rows. Ranges of two blocks or less keep the shuffles, which are then fewer than the split's.
// Measured (results/epyc-zen5-2c-kvm/kernel-rate/split-query.md; time with the split over
// without, binaries alternating): Zen 5 guest, kernel_bench floor/bf16 (512 positions from L2)
// G = 2 0.78-0.94 in 8 rounds, G = 8 0.80-1.00; int4 Qwen3-0.6B layer from L3 0.92-0.99. From DRAM
// bf16 and int4 stay within their spread there (medians 0.95-1.00) and on the Emerald Rapids host
// (9 rounds, median 1.00). Split at 2 positions, decode_step took 1.01-1.07x the time.
inline constexpr std::int64_t kMaxSplitQuery = 2048;
HWY_INLINE bool QuerySplit(const PartialArgs& a) {
  return a.rows > 2 * kRowsBlock && std::int64_t{a.heads} * a.head_dim <= kMaxSplitQuery;
}
// out[h] = q[h] with each whole pair of chunks as LoadQueryPair splits it (its even dims, then its
// odd ones); dims past the last pair as they are.
template <class D>
HWY_INLINE const float* SplitQueryPairs(D df, const float* q, std::int32_t heads, std::int32_t d,
                                        float* out) {
  const std::int64_t N = static_cast<std::int64_t>(hn::Lanes(df));
  for (std::int64_t h = 0; h < heads; ++h) {
    const float* qh = q + h * d;
    float* oh = out + h * d;
    std::int64_t j = 0;
    for (; j + 2 * N <= d; j += 2 * N) {
      hn::Vec<D> even, odd;
      LoadQueryPair(df, qh + j, &even, &odd);
      hn::StoreU(even, df, oh + j);
      hn::StoreU(odd, df, oh + j + N);
    }
    std::copy(qh + j, qh + d, oh + j);
  }
  return out;
}

// P: pointer to the row elements (const T* for byte-addressable dtypes, Int4Ptr for int4).
// kSplit: the prefetch scheme (joint_prefetch), a template argument so that each scheme's code is
// compiled without the other's tests. kQSplit: the query's pairs of chunks de-interleaved once
// per call (QuerySplit).
template <typename P, bool kSplit, std::int64_t kT, bool kQSplit>
void PartialTyped(const PartialArgs& a) {
  const hn::ScalableTag<float> df;
  // Softmax over a tile uses at most kT lanes so the score rows divide evenly.
  const hn::CappedTag<float, kT> dt;
  const std::int64_t NT = static_cast<std::int64_t>(hn::Lanes(dt));
  const std::int32_t d = a.head_dim;
  // A long tile's score buffer holds kTileHeads<kT> heads (PartialTile sends no more); bounding G
  // by it lets the compiler see that the wider head blocks never index past the buffer.
  const std::int32_t G = std::min(a.heads, kTileHeads<kT>);
  const P k = RowPtr<P>(a.k);
  const P v = RowPtr<P>(a.v);
  const float score_scale = a.scale * kDecodeUnit<P>;
  constexpr float kNegInf = -std::numeric_limits<float>::infinity();

  for (std::int32_t g = 0; g < G; ++g) {
    a.max[g] = kNegInf;
    a.sum[g] = 0.0f;
  }
  std::fill(a.acc, a.acc + std::int64_t{G} * d, 0.0f);

  HWY_ALIGN float q_pairs[kQSplit ? kMaxSplitQuery : 1];
  const float* q = a.q;
  if constexpr (kQSplit) q = SplitQueryPairs(df, a.q, G, d, q_pairs);

  HWY_ALIGN float s[kTileHeads<kT> * kT];  // scores, then probabilities, [head][row]
  constexpr bool kShifted = kShiftedSoftmax<P>;
  // kShifted: each head's running sum of exponentials, lane by lane (set by the first tile),
  // added up once after the last tile.
  HWY_ALIGN float sums[kShifted ? kTileHeads<kT> * hn::MaxLanes(dt) : 1];
  const std::int64_t row_bytes = dtype_row_bytes(a.dtype, d);
  constexpr bool joint = !kSplit;
  const auto kpf = StreamPrefetch<P>::Whole(k, a.stride, a.window_rows, row_bytes, a.prefetch, joint, v);
  const auto vpf = StreamPrefetch<P>::Whole(v, a.stride, a.window_rows, row_bytes, a.prefetch);
  // A tile scored in several head passes (G > kHeadsBlock) takes long enough per row that a
  // window of less than a tile runs dry: its first pass would prefetch rows that the same pass
  // reads moments later. There the window is the next tile, and each head pass prefetches an
  // equal share of it, so the misses spread over the whole tile's work. Measured as for
  // kPrefetchBytes (Zen 5, three alternating rounds, first pass only 8 rows ahead -> shared next
  // tile): one layer and KV head from DRAM, fp32 G = 8 176-184 -> 147-148, G = 16 310-313 ->
  // 226-231; Qwen3-0.6B with 64 query heads (G = 8), DRAM 189-194 -> 146-154, L3 142-153 ->
  // 152-158; one layer, fp32 G = 8 from L3 114-116 -> 120-123. The next tile alone (first pass
  // only) was no faster, and shares of an 8-row window slower (251-265). Where the window is
  // already a tile (fp16, bf16 at head_dim 128) shares were 3-10% slower, so they stay off.
  // Where each core gets little bandwidth the gain turns: kvbench attention fp32 G = 8, Zen 5, 2
  // threads against an 86 GB/s ceiling 77 -> 67 ms, against 52 GB/s 96 -> 101 ms; on the EMR
  // host (13 alternating rounds) 1 thread equal within its spread (medians 494 -> 494 ms), 16
  // threads median 57 -> 65 ms with rounds spread over 42-108 ms.
  // The shares go towards L2 only: a prefetch into L1 of a line still in DRAM holds an L1 miss
  // buffer for the whole trip, and a tile's 256 lines (fp32, K and V) can run the buffers out
  // under the FMAs. kvbench attention, 8 layers of Qwen3-0.6B, 16384 positions, fp32 G = 8,
  // alternating rounds, time with L2 shares over time with L1 shares: on the EMR host (13 rounds
  // over three lent machines) faster in 10 of 13 rounds at 1 thread (0.60-1.21) and 9 of 13 at
  // 16 (0.70-1.16), G = 8 over G = 1 per round, medians 1.51 -> 1.31 (1 thread) and 1.41 ->
  // 1.22 (16); on the Zen 5 guest (4 rounds) 1.00 at 1 and 2 threads. Two tiles ahead timed as
  // one on EMR (5 rounds) and, into L1, 7% slower on the Zen 5.
  // One pass of three heads (kTripleHeads) for G = 3, and as the last pass of G = 4k + 3 on
  // blocks of 4 heads, of every odd G for fp8 on pairs; the heads before it in blocks.
  const bool triple = kTripleHeads<P> && (G == 3 || (kHeadsBlock == 4 && G % 4 == 3) ||
                                          (kHeadsBlock == 2 && kFp8Rows<P> && G % 2 == 1 && G > 3));
  const std::int32_t paired_end = triple ? G - 3 : G;
  const int head_passes = triple ? paired_end / kHeadsBlock + 1
                                 : G / kHeadsBlock + (G % kHeadsBlock) / 2 + (G % kHeadsBlock) % 2;
  const bool shared = head_passes > 1 && prefetch_rows_ahead(row_bytes) < kT;
  const std::int64_t pf_ahead = shared ? kT : prefetch_rows_ahead(row_bytes);
  // The prefetcher for head pass `pass`: the whole window in the first pass, or its share.
  constexpr int kMaxHeadPasses = kMaxHeadsPerPass / kHeadsBlock + 2;
  StreamPrefetch<P> k_shares[kMaxHeadPasses], v_shares[kMaxHeadPasses];
  for (int pass = 0; shared && pass < head_passes; ++pass) {
    k_shares[pass] = kpf;
    k_shares[pass].share_of(pass, head_passes);
    v_shares[pass] = vpf;
    v_shares[pass].share_of(pass, head_passes);
  }
  const auto pass_prefetch = [&](const StreamPrefetch<P>& whole, const StreamPrefetch<P>* shares,
                                 int pass) -> const StreamPrefetch<P>* {
    if (!shared) return pass == 0 ? &whole : nullptr;
    return &shares[pass];
  };
  // TileOrder::kHalves: tiles of kT/2 rows of each of two halves, [0, m) and [b, b + m), read in
  // turn a segment of about kHalvesSegmentBytes of K (then of V) at a time, so the hardware
  // prefetchers have both halves' K and V streams in flight; the rows left, [m, b) and past
  // b + m, as linear tiles at the end. Each half keeps its own window ahead. One online softmax
  // runs over all the tiles. AMX scores whole tiles and stays linear.
  const std::int64_t half_tile = kT / 2;
  std::int64_t m = a.halves && a.amx == nullptr ? a.rows / kT * half_tile : 0;
  // The second half starts at row b = m + delta, delta rows on so that the two halves' rows sit
  // half a 4 KB page apart: a multiple of 4 KB would put all four streams' lines in the same L1
  // sets. Rows [m, b) join the linear tiles at the end.
  const std::int64_t stride_bytes = std::max<std::int64_t>(StrideBytes<P>(a.stride), 1);
  std::int64_t delta = 0;
  for (; m > 0; m -= half_tile) {
    delta = (kHalvesPageBytes / 2 - m * stride_bytes % kHalvesPageBytes + kHalvesPageBytes) % kHalvesPageBytes / stride_bytes;
    if (2 * m + delta <= a.rows) break;
  }
  const std::int64_t b = m + delta;
  const std::int64_t seg_rows =
      std::clamp<std::int64_t>(kHalvesSegmentBytes / std::max<std::int64_t>(row_bytes, 1), kRowsBlock, half_tile);
  const std::int64_t paired = m / half_tile;  // tiles of both halves
  const std::int64_t gap_tiles = (delta + kT - 1) / kT;  // linear tiles over [m, b), then past b + m
  const std::int64_t tiles = paired + gap_tiles + (a.rows - b - m + kT - 1) / kT;
  for (std::int64_t step = 0; step < tiles; ++step) {
    const bool first = step == 0;
    const bool pair = step < paired;
    const std::int64_t linear = step - paired;  // the linear tiles' index
    const std::int64_t t = pair ? step * half_tile  // (A's) first row
                           : linear < gap_tiles ? m + linear * kT
                                                : b + m + (linear - gap_tiles) * kT;
    const std::int64_t rows = pair ? kT : std::min(kT, (linear < gap_tiles ? b : a.rows) - t);
    // Segment i of the tile: rows [src, src + n) of the range, scores from s + off.
    const std::int64_t segments = pair ? 2 * ((half_tile + seg_rows - 1) / seg_rows) : 1;
    const auto segment = [&](std::int64_t i, std::int64_t* src, std::int64_t* n) {
      if (!pair) {
        *src = t;
        *n = rows;
        return std::int64_t{0};
      }
      const std::int64_t in_half = (i / 2) * seg_rows;
      *src = t + (i % 2) * b + in_half;
      *n = std::min(seg_rows, half_tile - in_half);
      return (i % 2) * half_tile + in_half;
    };
    if (a.kscale != nullptr && a.prefetch != SwPrefetch::kNone)
      for (std::int64_t h = 0; h < (pair ? 2 : 1); ++h) {
        const std::int64_t from = t + h * b + kScaleAhead;
        for (std::int64_t r = from; r < std::min(from + (pair ? half_tile : kT), a.window_rows); r += kScalesPerLine) {
          PrefetchL2(reinterpret_cast<const char*>(a.kscale + r));
          PrefetchL2(reinterpret_cast<const char*>(a.vscale + r));
        }
      }

    std::int32_t g = 0;
    if constexpr (std::is_same_v<P, const std::int8_t*> && kT == kTile) {  // AMX: 16 rows at a time
      if (a.amx != nullptr) {
        const std::int64_t pt = t + pf_ahead;
        kpf(pt, pt + rows);  // the whole tile's K prefetches at once: AMX leaves no FMAs to stall
        detail::amx_int8_score_tile(*a.amx, k + t * a.stride, a.stride, rows, a.kscale ? a.kscale + t : nullptr, s);
        g = G;
      }
    }
    for (std::int64_t i = 0; i < segments && g < G; ++i) {
      std::int64_t src, n;
      const std::int64_t off = segment(i, &src, &n);
      const P kt = k + src * a.stride;
      const std::int64_t pt = src + pf_ahead;  // rows prefetched during this segment
      const float* kscale = a.kscale ? a.kscale + src : nullptr;
      int pass = 0;
      std::int32_t h = g;
      for (; h + kHeadsBlock <= paired_end; h += kHeadsBlock)
        ScoreHeads<kHeadsBlock, kT, kQSplit>(df, kt, a.stride, n, d, q + std::int64_t{h} * d,
                                             s + h * kT + off, score_scale, kscale,
                                             pass_prefetch(kpf, k_shares, pass++), pt);
      if constexpr (kTripleHeads<P>) {
        if (triple) {
          ScoreHeads<3, kT, kQSplit>(df, kt, a.stride, n, d, q + std::int64_t{h} * d, s + h * kT + off,
                                     score_scale, kscale, pass_prefetch(kpf, k_shares, pass++), pt);
          h += 3;
        }
      }
      for (; h + 2 <= G; h += 2)
        ScoreHeads<2, kT, kQSplit>(df, kt, a.stride, n, d, q + std::int64_t{h} * d, s + h * kT + off,
                                   score_scale, kscale, pass_prefetch(kpf, k_shares, pass++), pt);
      for (; h < G; ++h)
        ScoreHeads<1, kT, kQSplit>(df, kt, a.stride, n, d, q + std::int64_t{h} * d, s + h * kT + off,
                                   score_scale, kscale, pass_prefetch(kpf, k_shares, pass++), pt);
    }

    // Online softmax, once per tile (kShiftedSoftmax: a shift raised only past the slack, else
    // each tile's maximum), over the tile's rows rounded up to whole vectors.
    const std::int64_t padded = (rows + NT - 1) / NT * NT;
    auto excess = hn::Set(dt, kNegInf);
    for (g = 0; g < G; ++g) {
      float* sg = s + g * kT;
      // Lanes past the rows of a last, partial tile (stale scores) become -inf (exp -> 0), in
      // registers: a scalar store per lane made the vector loads below wait for the stores to
      // reach L1 (no store forwarding). Zen 5, one layer's 8 KV heads from L2, cycles per call
      // of 9 rows: fp32 G = 2 853-910 -> 638-678, G = 8 2448-2493 -> 1578-1605.
      if (rows < kT)
        for (std::int64_t r = 0; r < padded; r += NT) {
          const auto valid = hn::FirstN(dt, static_cast<std::size_t>(std::max<std::int64_t>(0, rows - r)));
          hn::Store(hn::IfThenElse(valid, hn::Load(dt, sg + r), hn::Set(dt, kNegInf)), dt, sg + r);
        }
      if constexpr (kShifted) {
        if (first) continue;  // no shift yet: raised below
        const auto limit = hn::Set(dt, a.max[g] + kSoftmaxSlack);
        for (std::int64_t r = 0; r < padded; r += NT)
          excess = hn::Max(excess, hn::Sub(hn::Load(dt, sg + r), limit));
      }
    }
    const bool raise = !kShifted || first || !hn::AllFalse(dt, hn::Gt(excess, hn::Zero(dt)));
    for (g = 0; g < G; ++g) {
      float* sg = s + g * kT;
      if (raise) {
        auto vmax = hn::Load(dt, sg);
        for (std::int64_t r = NT; r < padded; r += NT) vmax = hn::Max(vmax, hn::Load(dt, sg + r));
        const float tile_max = hn::GetLane(hn::MaxOfLanes(dt, vmax));
        const float old_max = a.max[g];
        if (tile_max > old_max) {
          // Nothing to rescale before the first row (max -inf, sum 0).
          if (kShifted ? old_max != kNegInf : a.sum[g] != 0.0f) {
            const float corr = std::exp(old_max - tile_max);
            if constexpr (kShifted)
              hn::Store(hn::Mul(hn::Load(dt, sums + g * NT), hn::Set(dt, corr)), dt, sums + g * NT);
            else
              a.sum[g] *= corr;
            float* ag = a.acc + std::int64_t{g} * d;
            for (std::int32_t j = 0; j < d; ++j) ag[j] *= corr;
          }
          a.max[g] = tile_max;
        }
      }
      const auto m = hn::Set(dt, a.max[g]);
      auto vsum = !kShifted || first ? hn::Zero(dt) : hn::Load(dt, sums + g * NT);
      for (std::int64_t r = 0; r < padded; r += NT) {
        const auto p = ExpBounded(dt, hn::Sub(hn::Load(dt, sg + r), m));
        vsum = hn::Add(vsum, p);
        hn::Store(p, dt, sg + r);
      }
      if constexpr (kShifted) hn::Store(vsum, dt, sums + g * NT);
      else a.sum[g] += hn::GetLane(hn::SumOfLanes(dt, vsum));
      for (std::int64_t i = 0; a.vscale != nullptr && i < segments; ++i) {
        std::int64_t src, n;
        float* sp = sg + segment(i, &src, &n);
        for (std::int64_t r = 0; r < n; ++r) sp[r] *= a.vscale[src + r] * kDecodeUnit<P>;
      }
    }

    const auto vpass_prefetch = [&](int p) { return kSplit ? pass_prefetch(vpf, v_shares, p) : nullptr; };
    for (std::int64_t i = 0; i < segments; ++i) {
      std::int64_t src, n;
      const std::int64_t off = segment(i, &src, &n);
      const P vt = v + src * a.stride;
      const std::int64_t pt = src + pf_ahead;
      int pass = 0;
      for (g = 0; g + kHeadsBlock <= paired_end; g += kHeadsBlock)
        AccumulateHeads<kHeadsBlock, kT>(df, vt, a.stride, n, d, s + g * kT + off,
                                         a.acc + std::int64_t{g} * d, vpass_prefetch(pass++), pt);
      if constexpr (kTripleHeads<P>) {
        if (triple) {
          AccumulateHeads<3, kT>(df, vt, a.stride, n, d, s + g * kT + off, a.acc + std::int64_t{g} * d,
                                 vpass_prefetch(pass++), pt);
          g += 3;
        }
      }
      for (; g + 2 <= G; g += 2)
        AccumulateHeads<2, kT>(df, vt, a.stride, n, d, s + g * kT + off, a.acc + std::int64_t{g} * d,
                               vpass_prefetch(pass++), pt);
      for (; g < G; ++g)
        AccumulateHeads<1, kT>(df, vt, a.stride, n, d, s + g * kT + off, a.acc + std::int64_t{g} * d,
                               vpass_prefetch(pass++), pt);
    }
  }

  if constexpr (kShifted)
    for (std::int32_t g = 0; a.rows > 0 && g < G; ++g)
      a.sum[g] = hn::GetLane(hn::SumOfLanes(dt, hn::Load(dt, sums + g * NT)));

  if constexpr (Paired<decltype(df), P>()) {  // accumulators back to element order
    const std::int64_t N = static_cast<std::int64_t>(hn::Lanes(df));
    float tmp[2 * hn::MaxLanes(df)];
    for (std::int32_t g = 0; g < G; ++g) {
      for (std::int64_t j = 0; j + 2 * N <= d; j += 2 * N) {
        float* ag = a.acc + std::int64_t{g} * d + j;
        std::copy(ag, ag + 2 * N, tmp);
        for (std::int64_t i = 0; i < N; ++i) {
          ag[2 * i] = tmp[i];
          ag[2 * i + 1] = tmp[N + i];
        }
      }
    }
  }
}

template <typename P, std::int64_t kT, bool kQSplit>
void PartialScheme(const PartialArgs& a) {
  if (joint_prefetch(dtype_row_bytes(a.dtype, a.head_dim))) return PartialTyped<P, false, kT, kQSplit>(a);
  return PartialTyped<P, true, kT, kQSplit>(a);
}

template <typename P, std::int64_t kT>
void PartialQuery(const PartialArgs& a) {
  if constexpr (Paired<hn::ScalableTag<float>, P>()) {
    if (QuerySplit(a)) return PartialScheme<P, kT, true>(a);
  }
  return PartialScheme<P, kT, false>(a);
}

template <typename P>
void PartialTile(const PartialArgs& a) {
  constexpr std::int64_t kT = kTileFor<P>;
  if constexpr (kT != kTile && std::is_same_v<P, const std::int8_t*>) {
    if (a.amx != nullptr) return PartialQuery<P, kTile>(a);  // AMX scores 16 rows at a time
  }
  if constexpr (kLongTiles<P>) {
    if (a.heads <= kLongTileHeads && a.rows > kT) return PartialQuery<P, kLongTile>(a);
  } else {
    // A range of a few short tiles (the LLC rows' short contexts) pays each tile's closing chain
    // once as one long tile; longer ranges keep the short tiles (see kLongTile).
    if (a.heads <= kLongTileHeads && a.rows > kT && a.rows <= kLongTile) return PartialQuery<P, kLongTile>(a);
  }
  return PartialQuery<P, kT>(a);
}

void Partial(const PartialArgs& a) {
  switch (a.dtype) {
    case DType::kF32: return PartialTile<const float*>(a);
    case DType::kF16: return PartialTile<const hwy::float16_t*>(a);
    case DType::kBF16: return PartialTile<const hwy::bfloat16_t*>(a);
    case DType::kI8: return PartialTile<const std::int8_t*>(a);
    case DType::kF8E4M3: return PartialTile<const Fp8E4M3*>(a);
    case DType::kF8E5M2: return PartialTile<const Fp8E5M2*>(a);
    case DType::kI4: return PartialTile<Int4Ptr>(a);
  }
}

const char* TargetName() { return hwy::TargetName(HWY_TARGET); }

// NOLINTNEXTLINE(google-readability-namespace-comments)
}  // namespace HWY_NAMESPACE
}  // namespace kvb
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace kvb {

HWY_EXPORT(Partial);
HWY_EXPORT(TargetName);

namespace {

Status check_cache(const CacheView& cache, std::int32_t layer) noexcept {
  if (cache.geometry == nullptr || cache.data == nullptr) return Status::kNullArgument;
  const CacheShape& s = cache.geometry->shape();
  if (dtype_has_row_scale(s.dtype) && cache.scales == nullptr) return Status::kNullArgument;
  if (layer < 0 || layer >= s.layers) return Status::kOutOfRange;
  return Status::kOk;
}

// out[g][:] = acc[g][:] / sum[g]; an empty partial (sum 0) gives zeros.
void normalise(const AttentionPartial& p, std::int32_t G, std::int32_t d, float* out) noexcept {
  for (std::int32_t g = 0; g < G; ++g) {
    const float inv = p.sum[g] > 0.0f ? 1.0f / p.sum[g] : 0.0f;
    const float* a = p.acc + std::int64_t{g} * d;
    float* o = out + std::int64_t{g} * d;
    for (std::int32_t j = 0; j < d; ++j) o[j] = a[j] * inv;
  }
}

}  // namespace

std::int64_t attention_partial_floats(const CacheShape& shape) noexcept {
  const std::int64_t G = shape.kv_heads > 0 ? shape.q_heads / shape.kv_heads : 0;
  return G * (2 + std::int64_t{shape.head_dim});
}

AttentionPartial attention_partial_from(float* storage, const CacheShape& shape) noexcept {
  const std::int64_t G = shape.kv_heads > 0 ? shape.q_heads / shape.kv_heads : 0;
  AttentionPartial p;
  p.max = storage;
  p.sum = storage + G;
  p.acc = storage + 2 * G;
  return p;
}

Status attention_partial(const CacheView& cache, std::int32_t layer, std::int32_t kv_head,
                         std::int64_t t0, std::int64_t t1, const float* q, float scale,
                         AttentionPartial out, std::int64_t prefetch_to) noexcept {
  if (Status st = check_cache(cache, layer); !ok(st)) return st;
  if (q == nullptr || out.max == nullptr || out.sum == nullptr || out.acc == nullptr)
    return Status::kNullArgument;
  const CacheGeometry& geo = *cache.geometry;
  const CacheShape& s = geo.shape();
  if (kv_head < 0 || kv_head >= s.kv_heads) return Status::kOutOfRange;
  if (t0 < 0 || t0 > t1 || t1 > s.capacity || prefetch_to > s.capacity) return Status::kOutOfRange;

  const std::int32_t G = geo.group_size();
  const std::int32_t d = s.head_dim;
  const auto* base = static_cast<const unsigned char*>(cache.data);
  detail::PartialArgs a{};
  a.k = base + geo.byte_offset(layer, KV::kKey, kv_head, t0);
  a.v = base + geo.byte_offset(layer, KV::kValue, kv_head, t0);
  if (dtype_has_row_scale(s.dtype)) {
    a.kscale = cache.scales + geo.scale_index(layer, KV::kKey, kv_head, t0);
    a.vscale = cache.scales + geo.scale_index(layer, KV::kValue, kv_head, t0);
  }
  a.stride = geo.position_stride();
  a.rows = t1 - t0;
  a.window_rows = std::max(t1, prefetch_to) - t0;
  a.head_dim = d;
  a.dtype = s.dtype;
  a.scale = scale;
  a.prefetch = sw_prefetch();
  a.halves = tile_order() == TileOrder::kHalves;
  for (std::int32_t g0 = 0; g0 < G; g0 += detail::kMaxHeadsPerPass) {
    a.heads = std::min(detail::kMaxHeadsPerPass, G - g0);
    a.q = q + std::int64_t{g0} * d;
    a.max = out.max + g0;
    a.sum = out.sum + g0;
    a.acc = out.acc + std::int64_t{g0} * d;
    detail::AmxInt8Scorer amx;  // on the stack: ~12 KB of query limbs and the tile config
    a.amx = s.dtype == DType::kI8 && detail::amx_int8_begin(amx, a.q, a.heads, d, scale)
                ? &amx
                : nullptr;
    HWY_DYNAMIC_DISPATCH(Partial)(a);
    if (a.amx != nullptr) detail::amx_int8_end(amx);
  }
  return Status::kOk;
}

Status merge_partials(const CacheShape& shape, const AttentionPartial* parts, std::int32_t n,
                      float* out) noexcept {
  if (parts == nullptr || out == nullptr) return Status::kNullArgument;
  if (n < 0) return Status::kOutOfRange;
  if (shape.kv_heads <= 0 || shape.q_heads <= 0 || shape.head_dim <= 0 ||
      shape.q_heads % shape.kv_heads != 0)
    return Status::kInvalidShape;
  for (std::int32_t i = 0; i < n; ++i)
    if (parts[i].max == nullptr || parts[i].sum == nullptr || parts[i].acc == nullptr)
      return Status::kNullArgument;
  merge_heads(parts, n, shape.q_heads / shape.kv_heads, shape.head_dim, out);
  return Status::kOk;
}

Status decode_attention(const CacheView& cache, std::int32_t layer, std::int64_t context,
                        const float* q, float scale, float* out, float* workspace) noexcept {
  if (Status st = check_cache(cache, layer); !ok(st)) return st;
  if (q == nullptr || out == nullptr || workspace == nullptr) return Status::kNullArgument;
  const CacheShape& s = cache.geometry->shape();
  if (context < 0 || context > s.capacity) return Status::kOutOfRange;
  const std::int32_t G = cache.geometry->group_size();
  const std::int32_t d = s.head_dim;
  const AttentionPartial p = attention_partial_from(workspace, s);
  for (std::int32_t h = 0; h < s.kv_heads; ++h) {
    const std::int64_t off = std::int64_t{h} * G * d;
    if (Status st = attention_partial(cache, layer, h, 0, context, q + off, scale, p); !ok(st))
      return st;
    normalise(p, G, d, out + off);
  }
  return Status::kOk;
}

Status decode_attention_window(const CacheView& cache, std::int32_t layer, std::int64_t tokens,
                               const float* q, float scale, float* out, float* workspace) noexcept {
  if (cache.geometry == nullptr) return Status::kNullArgument;
  if (tokens < 0) return Status::kOutOfRange;
  // Attention is order-independent over positions (RoPE is applied before caching), so the last
  // W positions are exactly the filled ring slots [0, min(tokens, W)).
  const std::int64_t filled = std::min(tokens, cache.geometry->shape().capacity);
  return decode_attention(cache, layer, filled, q, scale, out, workspace);
}

const char* simd_target_name() noexcept { return HWY_DYNAMIC_DISPATCH(TargetName)(); }

const char* attention_int8_path() noexcept {
  return detail::amx_int8_enabled() ? "AMX-INT8" : "FMA";
}

}  // namespace kvb
#endif  // HWY_ONCE
