// Bandwidth and FMA loops for the ceilings, compiled for every Highway target and picked at
// run time. Eight independent accumulators (or streams) per loop hide load/FMA latency.
#include "harness/ceiling_kernels.h"

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <iterator>
#include <string>

#include "harness/error.h"

#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "harness/ceiling_kernels.cc"
#include "hwy/foreach_target.h"  // IWYU pragma: keep
#include "hwy/cache_control.h"
#include "hwy/highway.h"

HWY_BEFORE_NAMESPACE();
namespace kvb {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

float ReadImpl(const float* HWY_RESTRICT p, std::int64_t n) {
  const hn::ScalableTag<float> d;
  const std::int64_t N = static_cast<std::int64_t>(hn::Lanes(d));
  auto a0 = hn::Zero(d), a1 = hn::Zero(d), a2 = hn::Zero(d), a3 = hn::Zero(d);
  auto a4 = hn::Zero(d), a5 = hn::Zero(d), a6 = hn::Zero(d), a7 = hn::Zero(d);
  std::int64_t i = 0;
  for (; i + 8 * N <= n; i += 8 * N) {
    a0 = hn::Add(a0, hn::LoadU(d, p + i + 0 * N));
    a1 = hn::Add(a1, hn::LoadU(d, p + i + 1 * N));
    a2 = hn::Add(a2, hn::LoadU(d, p + i + 2 * N));
    a3 = hn::Add(a3, hn::LoadU(d, p + i + 3 * N));
    a4 = hn::Add(a4, hn::LoadU(d, p + i + 4 * N));
    a5 = hn::Add(a5, hn::LoadU(d, p + i + 5 * N));
    a6 = hn::Add(a6, hn::LoadU(d, p + i + 6 * N));
    a7 = hn::Add(a7, hn::LoadU(d, p + i + 7 * N));
  }
  for (; i + N <= n; i += N) a0 = hn::Add(a0, hn::LoadU(d, p + i));
  float tail = 0;
  for (; i < n; ++i) tail += p[i];
  a0 = hn::Add(hn::Add(hn::Add(a0, a1), hn::Add(a2, a3)), hn::Add(hn::Add(a4, a5), hn::Add(a6, a7)));
  return hn::GetLane(hn::SumOfLanes(d, a0)) + tail;
}

// Prefetches the `bytes` starting `ahead` bytes past p, line by line. The lines are computed as
// integers: the prefetch may point past the buffer (it never faults), the pointer may not.
HWY_INLINE void PrefetchAhead(const float* p, std::uintptr_t bytes, std::int64_t ahead, bool prefetch_t2) {
  const std::uintptr_t start = reinterpret_cast<std::uintptr_t>(p) + static_cast<std::uintptr_t>(ahead);
  for (std::uintptr_t o = 0; o < bytes; o += 64) {
    const char* line = reinterpret_cast<const char*>(start + o);
    if (prefetch_t2) {
      __builtin_prefetch(line, 0, 1);  // PREFETCHT2, as the attention kernels' SwPrefetch::kT2
    } else {
      hwy::Prefetch(line);
    }
  }
}

// Every vector read is summed (the loads cannot be dropped) and feeds kFmas FMAs, one on each of
// the next kFmas chains: chain = chain * 0.5 + v, so each of the eight chains takes kFmas of a
// block's 8 x kFmas FMAs (4-cycle latency, two FMA ports: they keep pace) and settles at 2v
// instead of growing.
template <int kFmas>
float ReadFmaT(const float* HWY_RESTRICT p, std::int64_t n, std::int64_t prefetch_bytes, bool prefetch_t2) {
  const hn::ScalableTag<float> d;
  const std::int64_t N = static_cast<std::int64_t>(hn::Lanes(d));
  const auto half = hn::Set(d, 0.5f);
  hn::Vec<decltype(d)> sum[8], chain[8];
  for (int k = 0; k < 8; ++k) sum[k] = chain[k] = hn::Zero(d);
  const auto block_bytes = static_cast<std::uintptr_t>(8 * N * sizeof(float));
  std::int64_t i = 0;
  for (; i + 8 * N <= n; i += 8 * N) {
    if (prefetch_bytes > 0) PrefetchAhead(p + i, block_bytes, prefetch_bytes, prefetch_t2);
#pragma GCC unroll 8
    for (int k = 0; k < 8; ++k) {
      const auto v = hn::LoadU(d, p + i + k * N);
      sum[k] = hn::Add(sum[k], v);
#pragma GCC unroll 32
      for (int f = 0; f < kFmas; ++f) chain[(k + f) & 7] = hn::MulAdd(chain[(k + f) & 7], half, v);
    }
  }
  float tail = 0;
  for (; i < n; ++i) tail += p[i];
  auto total = hn::Zero(d);
  for (int k = 0; k < 8; ++k) total = hn::Add(total, hn::Add(sum[k], chain[k]));
  return hn::GetLane(hn::SumOfLanes(d, total)) + tail;
}

float ReadFmaImpl(const float* HWY_RESTRICT p, std::int64_t n, int fmas, std::int64_t prefetch_bytes, bool prefetch_t2) {
  switch (fmas) {
    case 0: return ReadFmaT<0>(p, n, prefetch_bytes, prefetch_t2);
    case 2: return ReadFmaT<2>(p, n, prefetch_bytes, prefetch_t2);
    case 4: return ReadFmaT<4>(p, n, prefetch_bytes, prefetch_t2);
    case 8: return ReadFmaT<8>(p, n, prefetch_bytes, prefetch_t2);
    case 12: return ReadFmaT<12>(p, n, prefetch_bytes, prefetch_t2);
    case 16: return ReadFmaT<16>(p, n, prefetch_bytes, prefetch_t2);
    case 24: return ReadFmaT<24>(p, n, prefetch_bytes, prefetch_t2);
    default: return 0.0f;  // not one of ceiling_read_fma_counts: ceiling_read_fma refuses it
  }
}

// kStreams streams, stream s at p + s * stride, read in turn a block of 8 vectors from each, as
// the attention kernels read a tile's K rows and then its V rows: the hardware prefetchers see
// several streams at once, each line with the same window as ReadFmaT (prefetch_bytes > 0).
// Sums them all.
template <int kStreams>
float ReadStreamsT(const float* HWY_RESTRICT p, std::int64_t stride, std::int64_t n, std::int64_t prefetch_bytes,
                   bool prefetch_t2) {
  const hn::ScalableTag<float> d;
  const std::int64_t N = static_cast<std::int64_t>(hn::Lanes(d));
  hn::Vec<decltype(d)> sum[8];
  for (auto& v : sum) v = hn::Zero(d);
  const auto block_bytes = static_cast<std::uintptr_t>(8 * N * sizeof(float));
  std::int64_t i = 0;
  for (; i + 8 * N <= n; i += 8 * N) {
#pragma GCC unroll 4
    for (int s = 0; s < kStreams; ++s) {
      const float* q = p + s * stride + i;
      if (prefetch_bytes > 0) PrefetchAhead(q, block_bytes, prefetch_bytes, prefetch_t2);
#pragma GCC unroll 8
      for (int k = 0; k < 8; ++k) sum[k] = hn::Add(sum[k], hn::LoadU(d, q + k * N));
    }
  }
  float tail = 0;
  for (; i < n; ++i)
    for (int s = 0; s < kStreams; ++s) tail += p[s * stride + i];
  auto total = hn::Zero(d);
  for (const auto& v : sum) total = hn::Add(total, v);
  return hn::GetLane(hn::SumOfLanes(d, total)) + tail;
}

float ReadStreamsImpl(const float* HWY_RESTRICT p, std::int64_t stride, int streams, std::int64_t n,
                      std::int64_t prefetch_bytes, bool prefetch_t2) {
  switch (streams) {
    case 1: return ReadStreamsT<1>(p, stride, n, prefetch_bytes, prefetch_t2);
    case 2: return ReadStreamsT<2>(p, stride, n, prefetch_bytes, prefetch_t2);
    case 4: return ReadStreamsT<4>(p, stride, n, prefetch_bytes, prefetch_t2);
    default: return 0.0f;  // not one of ceiling_read_stream_counts: ceiling_read_streams refuses it
  }
}

void WriteImpl(float* HWY_RESTRICT p, std::int64_t n, float value) {
  const hn::ScalableTag<float> d;
  const std::int64_t N = static_cast<std::int64_t>(hn::Lanes(d));
  const auto v = hn::Set(d, value);
  std::int64_t i = 0;
  for (; i + 8 * N <= n; i += 8 * N) {
    for (std::int64_t k = 0; k < 8; ++k) hn::StoreU(v, d, p + i + k * N);
  }
  for (; i < n; ++i) p[i] = value;
}

void WriteNtImpl(float* HWY_RESTRICT p, std::int64_t n, float value) {
  const hn::ScalableTag<float> d;
  const std::int64_t N = static_cast<std::int64_t>(hn::Lanes(d));
  const auto v = hn::Set(d, value);
  std::int64_t i = 0;
  // Streaming stores need vector alignment: scalar stores up to the first aligned float.
  while (i < n && reinterpret_cast<std::uintptr_t>(p + i) % (N * sizeof(float)) != 0) p[i++] = value;
  for (; i + 8 * N <= n; i += 8 * N) {
    for (std::int64_t k = 0; k < 8; ++k) hn::Stream(v, d, p + i + k * N);
  }
  for (; i < n; ++i) p[i] = value;
}

void CopyImpl(const float* HWY_RESTRICT src, float* HWY_RESTRICT dst, std::int64_t n) {
  const hn::ScalableTag<float> d;
  const std::int64_t N = static_cast<std::int64_t>(hn::Lanes(d));
  std::int64_t i = 0;
  for (; i + 4 * N <= n; i += 4 * N) {
    const auto v0 = hn::LoadU(d, src + i + 0 * N);
    const auto v1 = hn::LoadU(d, src + i + 1 * N);
    const auto v2 = hn::LoadU(d, src + i + 2 * N);
    const auto v3 = hn::LoadU(d, src + i + 3 * N);
    hn::StoreU(v0, d, dst + i + 0 * N);
    hn::StoreU(v1, d, dst + i + 1 * N);
    hn::StoreU(v2, d, dst + i + 2 * N);
    hn::StoreU(v3, d, dst + i + 3 * N);
  }
  for (; i < n; ++i) dst[i] = src[i];
}

// 12 independent FMA chains: enough for 2 FMA ports x 4-5 cycles latency.
std::int64_t FmaImpl(std::int64_t rounds, float* sink) {
  const hn::ScalableTag<float> d;
  const auto m = hn::Set(d, 0.999999f), c = hn::Set(d, 1e-7f);
  auto a0 = hn::Set(d, 1.0f), a1 = hn::Set(d, 1.1f), a2 = hn::Set(d, 1.2f), a3 = hn::Set(d, 1.3f);
  auto a4 = hn::Set(d, 1.4f), a5 = hn::Set(d, 1.5f), a6 = hn::Set(d, 1.6f), a7 = hn::Set(d, 1.7f);
  auto a8 = hn::Set(d, 1.8f), a9 = hn::Set(d, 1.9f), a10 = hn::Set(d, 2.0f), a11 = hn::Set(d, 2.1f);
  for (std::int64_t r = 0; r < rounds; ++r) {
    a0 = hn::MulAdd(a0, m, c); a1 = hn::MulAdd(a1, m, c); a2 = hn::MulAdd(a2, m, c);
    a3 = hn::MulAdd(a3, m, c); a4 = hn::MulAdd(a4, m, c); a5 = hn::MulAdd(a5, m, c);
    a6 = hn::MulAdd(a6, m, c); a7 = hn::MulAdd(a7, m, c); a8 = hn::MulAdd(a8, m, c);
    a9 = hn::MulAdd(a9, m, c); a10 = hn::MulAdd(a10, m, c); a11 = hn::MulAdd(a11, m, c);
  }
  auto s = hn::Add(hn::Add(hn::Add(a0, a1), hn::Add(a2, a3)), hn::Add(hn::Add(a4, a5), hn::Add(a6, a7)));
  s = hn::Add(s, hn::Add(hn::Add(a8, a9), hn::Add(a10, a11)));
  *sink = hn::GetLane(hn::SumOfLanes(d, s));
  return rounds * 12 * 2 * static_cast<std::int64_t>(hn::Lanes(d));
}

std::int64_t LanesImpl() { return static_cast<std::int64_t>(hn::Lanes(hn::ScalableTag<float>())); }
const char* TargetNameImpl() { return hwy::TargetName(HWY_TARGET); }

}  // namespace HWY_NAMESPACE
}  // namespace kvb
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace kvb {

HWY_EXPORT(ReadImpl);
HWY_EXPORT(ReadFmaImpl);
HWY_EXPORT(ReadStreamsImpl);
HWY_EXPORT(WriteImpl);
HWY_EXPORT(WriteNtImpl);
HWY_EXPORT(CopyImpl);
HWY_EXPORT(FmaImpl);
HWY_EXPORT(LanesImpl);
HWY_EXPORT(TargetNameImpl);

std::int64_t ceiling_block_floats() { return 8 * HWY_DYNAMIC_DISPATCH(LanesImpl)(); }
float ceiling_read(const float* p, std::int64_t n) { return HWY_DYNAMIC_DISPATCH(ReadImpl)(p, n); }
float ceiling_read_fma(const float* p, std::int64_t n, int fmas, std::int64_t prefetch_bytes, bool prefetch_t2) {
  if (std::find(std::begin(ceiling_read_fma_counts), std::end(ceiling_read_fma_counts), fmas) ==
      std::end(ceiling_read_fma_counts))
    throw HarnessError("ceiling_read_fma: " + std::to_string(fmas) +
                       " FMAs per vector is not one of the compiled counts");
  return HWY_DYNAMIC_DISPATCH(ReadFmaImpl)(p, n, fmas, prefetch_bytes, prefetch_t2);
}
float ceiling_read_streams(const float* p, std::int64_t stride, int streams, std::int64_t n,
                           std::int64_t prefetch_bytes, bool prefetch_t2) {
  if (std::find(std::begin(ceiling_read_stream_counts), std::end(ceiling_read_stream_counts), streams) ==
      std::end(ceiling_read_stream_counts))
    throw HarnessError("ceiling_read_streams: " + std::to_string(streams) + " streams is not one of the compiled counts");
  return HWY_DYNAMIC_DISPATCH(ReadStreamsImpl)(p, stride, streams, n, prefetch_bytes, prefetch_t2);
}
void ceiling_write(float* p, std::int64_t n, float value) { HWY_DYNAMIC_DISPATCH(WriteImpl)(p, n, value); }
void ceiling_write_nt(float* p, std::int64_t n, float value) {
  HWY_DYNAMIC_DISPATCH(WriteNtImpl)(p, n, value);
  std::atomic_thread_fence(std::memory_order_seq_cst);  // drain write-combining buffers
}
void ceiling_copy(const float* src, float* dst, std::int64_t n) { HWY_DYNAMIC_DISPATCH(CopyImpl)(src, dst, n); }
std::int64_t ceiling_fma(std::int64_t rounds, float* sink) { return HWY_DYNAMIC_DISPATCH(FmaImpl)(rounds, sink); }
const char* ceiling_target_name() { return HWY_DYNAMIC_DISPATCH(TargetNameImpl)(); }

}  // namespace kvb
#endif  // HWY_ONCE
