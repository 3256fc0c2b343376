// Software prefetch of the attention kernels' K/V rows: which x86 hint the window ahead of the
// reads uses (kernels/attention.cc, kPrefetchBytes ahead). A process-wide setting, like the AMX
// switch: the kernels read it on every call, the command line sets it once (kvbench run
// --sw-prefetch), and the CSV's isa column names it where it is not the kernels' default (T0).
#pragma once
#include <cstdint>
#include <string>

namespace kvb {

// How far ahead of their reads the attention kernels prefetch (bytes; measured and argued at
// kernels/attention.cc's kPrefetchBytes). The read ceiling's second loop keeps the same window
// (harness/ceilings.h), so a ceiling is never a loop that hides less latency than the kernels do.
inline constexpr std::int64_t kPrefetchWindowBytes = 4096;

enum class SwPrefetch {
  kT0,    // PREFETCHT0 (Arm: PLDL1KEEP): into L1; the kernels' default
  kT2,    // PREFETCHT2 (Arm: PLDL3KEEP): towards L2 only, no L1 fill buffer held for the trip
  kNone,  // no software prefetch: the hardware prefetchers alone
};

SwPrefetch sw_prefetch() noexcept;
void set_sw_prefetch(SwPrefetch p) noexcept;

// "t0", "t2", "none"; nullptr-safe names for the CSV and messages.
const char* sw_prefetch_name(SwPrefetch p) noexcept;
bool parse_sw_prefetch(const std::string& name, SwPrefetch* out) noexcept;

// The hint measured fastest for Qwen3-0.6B decode on a CPU, by its x86 vendor string and family
// number (cpu_family < 0: unknown). T2 on AMD family 25 (Zen 3 and Zen 4), T0 elsewhere.
SwPrefetch tuned_sw_prefetch(const std::string& cpu_vendor, int cpu_family) noexcept;

}  // namespace kvb
