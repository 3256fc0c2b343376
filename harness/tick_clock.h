// Ticks of a constant-rate clock every PU shares: the timestamp counter where there is one, else
// steady_clock. The barrier-wait shares (a ratio, so the unit cancels) and the barriers' arrival
// stamps (ThreadPool::barrier(stamp)) read it; two reads per layer and worker, about 10 ns each
// on the Zen 4 guest, added about 1% to the shortest steps measured there (Qwen3-0.6B, 2
// positions, 2 threads: 43 us).
#pragma once
#include <chrono>
#include <cstdint>

#if defined(__x86_64__) || defined(__i386__)
#include <x86intrin.h>
#endif

namespace kvb {

inline std::uint64_t ticks() noexcept {
#if defined(__x86_64__) || defined(__i386__)
  return __rdtsc();
#else
  return static_cast<std::uint64_t>(std::chrono::steady_clock::now().time_since_epoch().count());
#endif
}

}  // namespace kvb
