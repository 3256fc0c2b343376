// Per-target header (Highway's -inl.h pattern: foreach_target re-includes it once per target).
// Include after hwy/highway.h, outside any namespace.
//
// Reduce4(d, a0, a1, a2, a3, op): [op over the lanes of a0, ... of a3] in one 128-bit vector: two
// interleave levels inside each 128-bit block, then the blocks are folded. About a third of the
// shuffles of four separate reductions, which matters where shuffles compete with FMAs (the
// attention scores' lane sums) or bound the loop (int8 row scales' maxima). op is associative
// and commutative (Add, Max). x86 only (KVB_HAVE_REDUCE4): other targets reduce lane by lane.
#if defined(KVBENCH_KERNELS_LANE_REDUCE_INL_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef KVBENCH_KERNELS_LANE_REDUCE_INL_H_
#undef KVBENCH_KERNELS_LANE_REDUCE_INL_H_
#else
#define KVBENCH_KERNELS_LANE_REDUCE_INL_H_
#endif

#include "hwy/highway.h"

HWY_BEFORE_NAMESPACE();
namespace kvb {
namespace HWY_NAMESPACE {

#undef KVB_HAVE_REDUCE4
#if HWY_ARCH_X86 && HWY_TARGET != HWY_SCALAR && HWY_TARGET != HWY_EMU128
#define KVB_HAVE_REDUCE4 1

template <class D, class Op>
HWY_INLINE hwy::HWY_NAMESPACE::Vec<hwy::HWY_NAMESPACE::Full128<float>> FoldBlocks(
    D d, hwy::HWY_NAMESPACE::Vec<D> v, Op op) {
  namespace hn = hwy::HWY_NAMESPACE;
  if constexpr (hn::MaxLanes(D()) > 4) {
    const hn::Half<D> dh;
    return FoldBlocks(dh, op(hn::LowerHalf(dh, v), hn::UpperHalf(dh, v)), op);
  } else {
    (void)d;
    return v;
  }
}

template <class D, class V, class Op>
HWY_INLINE hwy::HWY_NAMESPACE::Vec<hwy::HWY_NAMESPACE::Full128<float>> Reduce4(D d, V a0, V a1, V a2, V a3,
                                                                               Op op) {
  namespace hn = hwy::HWY_NAMESPACE;
  const hn::RepartitionToWide<D> dw;
  const V b01 = op(hn::InterleaveLower(d, a0, a1), hn::InterleaveUpper(d, a0, a1));
  const V b23 = op(hn::InterleaveLower(d, a2, a3), hn::InterleaveUpper(d, a2, a3));
  const auto w01 = hn::BitCast(dw, b01);
  const auto w23 = hn::BitCast(dw, b23);
  const V c = op(hn::BitCast(d, hn::InterleaveLower(dw, w01, w23)), hn::BitCast(d, hn::InterleaveUpper(dw, w01, w23)));
  return FoldBlocks(d, c, op);
}

#else
#define KVB_HAVE_REDUCE4 0
#endif

// NOLINTNEXTLINE(google-readability-namespace-comments)
}  // namespace HWY_NAMESPACE
}  // namespace kvb
HWY_AFTER_NAMESPACE();

#endif  // KVBENCH_KERNELS_LANE_REDUCE_INL_H_
