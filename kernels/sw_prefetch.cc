#include "kernels/sw_prefetch.h"

#include <atomic>

namespace kvb {

namespace {
std::atomic<SwPrefetch> g_sw_prefetch{SwPrefetch::kT0};
}  // namespace

SwPrefetch sw_prefetch() noexcept { return g_sw_prefetch.load(std::memory_order_relaxed); }

void set_sw_prefetch(SwPrefetch p) noexcept { g_sw_prefetch.store(p, std::memory_order_relaxed); }

const char* sw_prefetch_name(SwPrefetch p) noexcept {
  switch (p) {
    case SwPrefetch::kT0: return "t0";
    case SwPrefetch::kT2: return "t2";
    case SwPrefetch::kNone: return "none";
  }
  return "?";
}

bool parse_sw_prefetch(const std::string& name, SwPrefetch* out) noexcept {
  for (SwPrefetch p : {SwPrefetch::kT0, SwPrefetch::kT2, SwPrefetch::kNone}) {
    if (name == sw_prefetch_name(p)) {
      *out = p;
      return true;
    }
  }
  return false;
}

// Measured with one binary switching the hint (kvbench run --sw-prefetch), decode_step
// Qwen3-0.6B at the cache-sized contexts, alternating rounds, time over T0's
// (results/epyc-zen4-2c-kvm/sw-prefetch/, results/xeon-emr-16c-kvm/session-2026-11-27h/):
//   AMD EPYC Zen 4 (family 25), DRAM: T2 faster at 1 and 2 threads for every dtype; L3 mixed.
//   Intel Emerald Rapids: T2 faster from DRAM at 1 thread but slower at 16 (L3 rows most), and no
//   prefetch 1.0-1.3x slower from DRAM. So T2 only where it measured faster overall.
SwPrefetch tuned_sw_prefetch(const std::string& cpu_vendor, int cpu_family) noexcept {
  if (cpu_vendor == "AuthenticAMD" && cpu_family == 25) return SwPrefetch::kT2;
  return SwPrefetch::kT0;
}

}  // namespace kvb
