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
// Qwen3-0.6B at the cache-sized contexts, alternating rounds, medians of the per-round time over
// T0's (results/epyc-zen4-2c-kvm/sw-prefetch/, results/xeon-emr-16c-kvm/session-2026-11-27h/):
//   AMD EPYC Zen 4 guest (family 25), 4 rounds, fp32 / fp16 / bf16 / int8:
//     DRAM 1 thread T2 0.80 / 0.65 / 0.69 / 0.87, none 0.95 / 0.81 / 0.78 / 0.86;
//     DRAM 2 threads T2 0.88 / 0.83 / 0.75 / 0.93; L3 1 thread T2 0.85 / 1.12 / 1.10 / 1.05,
//     none 1.31-1.74; L3 2 threads T2 0.95 / 0.88 / 0.91 / 0.97.
//   Intel Emerald Rapids host, 6 rounds, DRAM T2 0.89-1.12 at 1-16 threads (16: 1.01 / 0.97 /
//     1.07 / 1.07), L3 mostly slower (0.74-1.44); without prefetch (scratch builds) 1.01-1.34 from
//     DRAM at 1 and 16 threads.
//   AMD EPYC Zen 5 guest (family 26), 6 rounds, DRAM T2 1.05 / 1.10 / 1.11 / 1.04 at 1 thread
//     (slower in every round), 1.02 / 1.06 / 1.32 / 1.03 at 2 (results/epyc-zen5-2c-kvm/sw-prefetch/).
//   AMD EPYC Zen 3 guest (family 25, AVX2), 3 rounds, fp32 / fp16 / bf16 / int8, DRAM 1 thread:
//     T0 1.06 / 0.94 / 0.93 / 1.02 (int8's rounds 0.99-1.68) of T2's time, none 1.11 / 1.17 /
//     1.08 / 1.23 (results/epyc-zen3-2c-kvm/kernel-rate/sw-prefetch.md): a window pays, its hint
//     hardly matters, so family 25 keeps T2.
//   PREFETCHNTA (a scratch build's window, 2026-12-03; why there is no "nta"): Zen 5 guest DRAM
//     0.92-1.07 at 1 and 2 threads, 10 rounds, none significant; EMR host DRAM 1.96-2.78x at 1
//     and 16 threads, 8 rounds, all significant (results/xeon-emr-16c-kvm/nta-ab/).
SwPrefetch tuned_sw_prefetch(const std::string& cpu_vendor, int cpu_family) noexcept {
  if (cpu_vendor == "AuthenticAMD" && cpu_family == 25) return SwPrefetch::kT2;
  return SwPrefetch::kT0;
}

}  // namespace kvb
