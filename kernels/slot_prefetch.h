// The request an int8 append makes for its slot's code lines before the scale chains
// (kernels/row_encode.cc): owned (x86 PREFETCHW), read (PREFETCHT0) or none. A process-wide
// setting like the attention window's hint (kernels/sw_prefetch.h): the encoders read it once per
// call, the command line sets it once (kvbench run --slot-prefetch, auto: tuned_slot_prefetch), and
// the CSV's isa column names it where it is not the kernels' default (w).
#pragma once
#include <string>

namespace kvb {

enum class SlotPrefetch {
  kWrite,  // PREFETCHW on the AVX-512 targets (AVX2: PREFETCHT0, early Intel AVX2 cores lack it;
           // other architectures: the compiler's write prefetch); the kernels' default
  kRead,   // PREFETCHT0 (Arm: the compiler's read prefetch): the line arrives to be read
  kNone,   // no request: the stores find their lines themselves
};

SlotPrefetch slot_prefetch() noexcept;
void set_slot_prefetch(SlotPrefetch p) noexcept;

// "w", "t0", "none"; for the CSV and messages.
const char* slot_prefetch_name(SlotPrefetch p) noexcept;
bool parse_slot_prefetch(const std::string& name, SlotPrefetch* out) noexcept;

// The request measured fastest for int8 appends on a CPU, by its x86 vendor string and family
// number (cpu_family < 0: unknown): w on AMD family 26 (Zen 5), t0 elsewhere.
SlotPrefetch tuned_slot_prefetch(const std::string& cpu_vendor, int cpu_family) noexcept;

}  // namespace kvb
