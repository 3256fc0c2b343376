// Page-aligned buffers for the KV cache and ceiling working sets, with a recorded NUMA
// placement policy and transparent-huge-page state.
#pragma once
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace kvb {

class Topology;

enum class PlacementKind { kFirstTouch, kBind, kInterleave };

struct Placement {
  PlacementKind kind = PlacementKind::kFirstTouch;
  unsigned node = 0;  // NUMA node OS index, only for kBind
};
// "first_touch", "bind:<node>", "interleave"; throws HarnessError on anything else.
Placement parse_placement(std::string_view text);
// Throws HarnessError naming the node when `p` binds to a NUMA node hwloc does not see, so a
// command can refuse it before it measures anything.
void check_placement(const Topology& topo, const Placement& p);
std::string placement_name(const Placement& p);

// Whether the kernel backed a range with transparent huge pages (AnonHugePages in
// /proc/self/smaps). kUnknown when smaps is unreadable or nothing was faulted in yet.
enum class ThpState { kYes, kNo, kUnknown };
const char* thp_state_name(ThpState s);  // "yes", "no", "unknown"

// How much of a buffer huge pages back. The share matters, not just yes/no: a kernel short of
// free 2 MiB pages backs part of a large buffer with 4 KiB pages, and the TLB misses slow
// streaming reads.
struct ThpBacking {
  ThpState state = ThpState::kUnknown;
  double share = -1;  // AnonHugePages bytes over the buffer's bytes (at most 1); -1 when unknown
};

class Buffer {
 public:
  Buffer() = default;
  // Reserves `bytes` via hwloc_alloc/hwloc_alloc_membind, starting on a 2 MiB boundary so
  // huge pages can back all of it, and asks for them (madvise MADV_HUGEPAGE). Pages are not touched: with first_touch the first writer
  // places them. Throws HarnessError (naming the size) if memory cannot be had.
  Buffer(const Topology& topo, std::size_t bytes, const Placement& placement);
  ~Buffer();
  Buffer(Buffer&& o) noexcept;
  Buffer& operator=(Buffer&& o) noexcept;
  Buffer(const Buffer&) = delete;
  Buffer& operator=(const Buffer&) = delete;

  void* data() const noexcept { return data_; }
  std::size_t size() const noexcept { return size_; }  // requested bytes
  const Placement& placement() const noexcept { return placement_; }
  bool huge_page_advice_taken() const noexcept { return madvised_; }
  // Reads /proc/self/smaps now: call after the buffer was written.
  ThpBacking thp_backing() const;
  ThpState thp() const { return thp_backing().state; }
  std::int64_t anon_huge_bytes() const;  // -1 if unknown

 private:
  const Topology* topo_ = nullptr;
  void* base_ = nullptr;  // what hwloc returned; data_ is base_ rounded up to 2 MiB
  void* data_ = nullptr;
  std::size_t size_ = 0, mapped_ = 0;
  Placement placement_{};
  bool madvised_ = false;
};

}  // namespace kvb
