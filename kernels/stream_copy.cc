#include "kernels/stream_copy.h"

#include <algorithm>
#include <cstring>

#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "kernels/stream_copy.cc"
#include "hwy/foreach_target.h"  // IWYU pragma: keep
#include "hwy/highway.h"
#include "hwy/cache_control.h"

HWY_BEFORE_NAMESPACE();
namespace kvb {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

// Non-temporal move of `bytes` bytes. Direction follows memmove: forward when dst <= src (every
// chunk is loaded before anything at or above its address is stored), backward otherwise.
void StreamMove(std::uint8_t* dst, const std::uint8_t* src, std::int64_t bytes) {
  const hn::ScalableTag<std::uint8_t> d;
  const auto N = static_cast<std::int64_t>(hn::Lanes(d));
  // Bytes before the first vector-aligned destination address, and the aligned span after it.
  const auto misalign = static_cast<std::int64_t>(reinterpret_cast<std::uintptr_t>(dst) % N);
  const std::int64_t head = misalign == 0 ? 0 : std::min(bytes, N - misalign);
  const std::int64_t body = (bytes - head) / N * N;
  const std::int64_t tail = bytes - head - body;
  if (dst <= src) {
    std::memmove(dst, src, static_cast<std::size_t>(head));
    for (std::int64_t i = head; i < head + body; i += N) hn::Stream(hn::LoadU(d, src + i), d, dst + i);
    std::memmove(dst + head + body, src + head + body, static_cast<std::size_t>(tail));
  } else {
    std::memmove(dst + head + body, src + head + body, static_cast<std::size_t>(tail));
    for (std::int64_t i = head + body - N; i >= head; i -= N) hn::Stream(hn::LoadU(d, src + i), d, dst + i);
    std::memmove(dst, src, static_cast<std::size_t>(head));
  }
}

// NOLINTNEXTLINE(google-readability-namespace-comments)
}  // namespace HWY_NAMESPACE
}  // namespace kvb
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace kvb {

HWY_EXPORT(StreamMove);

void move_bytes(void* dst, const void* src, std::int64_t bytes, bool stream) noexcept {
  if (bytes <= 0 || dst == src) return;
  if (!stream) {
    std::memmove(dst, src, static_cast<std::size_t>(bytes));
    return;
  }
  HWY_DYNAMIC_DISPATCH(StreamMove)(static_cast<std::uint8_t*>(dst),
                                   static_cast<const std::uint8_t*>(src), bytes);
}

void stream_fence() noexcept { hwy::FlushStream(); }

}  // namespace kvb
#endif  // HWY_ONCE
