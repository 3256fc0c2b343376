#include "kernels/slot_prefetch.h"

#include <atomic>

namespace kvb {

namespace {
std::atomic<SlotPrefetch> g_slot_prefetch{SlotPrefetch::kWrite};
}  // namespace

SlotPrefetch slot_prefetch() noexcept { return g_slot_prefetch.load(std::memory_order_relaxed); }

void set_slot_prefetch(SlotPrefetch p) noexcept { g_slot_prefetch.store(p, std::memory_order_relaxed); }

const char* slot_prefetch_name(SlotPrefetch p) noexcept {
  switch (p) {
    case SlotPrefetch::kWrite: return "w";
    case SlotPrefetch::kRead: return "t0";
    case SlotPrefetch::kNone: return "none";
  }
  return "?";
}

bool parse_slot_prefetch(const std::string& name, SlotPrefetch* out) noexcept {
  for (SlotPrefetch p : {SlotPrefetch::kWrite, SlotPrefetch::kRead, SlotPrefetch::kNone}) {
    if (name == slot_prefetch_name(p)) {
      *out = p;
      return true;
    }
  }
  return false;
}

// Measured with kvbench ab, int8 appends, each arm at four code placements:
//   AMD EPYC Zen 5 guest (family 26), Qwen3-0.6B, 141 and 9363 positions, 16 rounds: w against t0
//     0.56-0.71x the time at 2 threads (every row significant), 0.94-1.06x at 1
//     (results/epyc-zen5-2c-kvm-508m/two-thread-int8/ab-prefetchw4/).
//   Intel Emerald Rapids host (family 6), 32 layers, 8 KV heads, 8 rounds: w (main cee3c40)
//     against t0 (fc33868, the same code but the request) 1.26x / 1.29x at fresh 1000-position
//     slots at 1 / 2 threads (0 of 8 rounds faster, significant), 1.02-1.04x at 4096, rewritten
//     slots 0.95-1.13x; at 16 threads 0.97-1.13x, none significant
//     (results/xeon-emr-16c-kvm/int8-prefetchw/ab-vs-fc33868-*). One build (main 1379561), 1, 2
//     and 8 KV heads: w against t0 at 1-16 threads nothing significant, 1-thread medians leaning to
//     t0; none against t0 1.46-1.64x at 8 KV heads' fresh slots, never significantly faster
//     (ab-1379561-*).
// Elsewhere t0, the request before w was measured (0.53-0.93x the time of none at fresh slots on
// both CPUs, results/*/int8-slot-prefetch/).
SlotPrefetch tuned_slot_prefetch(const std::string& cpu_vendor, int cpu_family) noexcept {
  if (cpu_vendor == "AuthenticAMD" && cpu_family == 26) return SlotPrefetch::kWrite;
  return SlotPrefetch::kRead;
}

}  // namespace kvb
