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

}  // namespace kvb
