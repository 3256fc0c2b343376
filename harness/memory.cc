#include "harness/memory.h"

#include <hwloc.h>
#include <sys/mman.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <string>

#include "harness/error.h"
#include "harness/topology.h"

namespace kvb {
namespace {

constexpr std::size_t kHugePage = 2u << 20;  // align so THP can back the whole range

}  // namespace

Placement parse_placement(std::string_view text) {
  Placement p;
  if (text == "first_touch") return p;
  if (text == "interleave") { p.kind = PlacementKind::kInterleave; return p; }
  if (text.substr(0, 5) == "bind:") {
    const std::string num(text.substr(5));
    char* end = nullptr;
    const unsigned long v = std::strtoul(num.c_str(), &end, 10);
    if (num.empty() || *end != '\0')
      throw HarnessError("bad NUMA node in placement '" + std::string(text) + "' (expected bind:<node>)");
    p.kind = PlacementKind::kBind;
    p.node = static_cast<unsigned>(v);
    return p;
  }
  throw HarnessError("unknown placement '" + std::string(text) +
                     "' (expected first_touch, bind:<node> or interleave)");
}

void check_placement(const Topology& topo, const Placement& p) {
  if (p.kind == PlacementKind::kBind && !hwloc_get_numanode_obj_by_os_index(topo.raw(), p.node))
    throw HarnessError("placement bind:" + std::to_string(p.node) + ": no such NUMA node (hwloc sees " +
                       std::to_string(topo.numa_nodes()) + ")");
}

std::string placement_name(const Placement& p) {
  switch (p.kind) {
    case PlacementKind::kFirstTouch: return "first_touch";
    case PlacementKind::kBind: return "bind:" + std::to_string(p.node);
    case PlacementKind::kInterleave: return "interleave";
  }
  return "?";
}

const char* thp_state_name(ThpState s) {
  switch (s) {
    case ThpState::kYes: return "yes";
    case ThpState::kNo: return "no";
    case ThpState::kUnknown: return "unknown";
  }
  return "unknown";
}

Buffer::Buffer(const Topology& topo, std::size_t bytes, const Placement& placement)
    : topo_(&topo), size_(bytes), placement_(placement) {
  if (bytes == 0) throw HarnessError("cannot allocate an empty buffer");
  check_placement(topo, placement);
  mapped_ = (bytes + kHugePage - 1) / kHugePage * kHugePage + kHugePage;
  void* base = nullptr;
  hwloc_topology_t h = topo.raw();
  if (placement.kind == PlacementKind::kFirstTouch) {
    base = hwloc_alloc(h, mapped_);
  } else {
    hwloc_nodeset_t nodes = hwloc_bitmap_alloc();
    if (placement.kind == PlacementKind::kBind) {
      hwloc_bitmap_only(nodes, placement.node);
    } else {
      hwloc_bitmap_copy(nodes, hwloc_get_root_obj(h)->nodeset);
    }
    const hwloc_membind_policy_t pol =
        placement.kind == PlacementKind::kBind ? HWLOC_MEMBIND_BIND : HWLOC_MEMBIND_INTERLEAVE;
    base = hwloc_alloc_membind(h, mapped_, nodes, pol, HWLOC_MEMBIND_BYNODESET);
    hwloc_bitmap_free(nodes);
  }
  if (!base)
    throw HarnessError("cannot allocate " + std::to_string(bytes) + " bytes (" + placement_name(placement) +
                       "): " + std::strerror(errno));
  base_ = base;
  const auto addr = reinterpret_cast<std::uintptr_t>(base);
  data_ = reinterpret_cast<void*>((addr + kHugePage - 1) / kHugePage * kHugePage);
#ifdef MADV_HUGEPAGE
  madvised_ = madvise(data_, (bytes + kHugePage - 1) / kHugePage * kHugePage, MADV_HUGEPAGE) == 0;
#endif
}

Buffer::~Buffer() {
  if (base_) hwloc_free(topo_->raw(), base_, mapped_);
}

Buffer::Buffer(Buffer&& o) noexcept { *this = std::move(o); }

Buffer& Buffer::operator=(Buffer&& o) noexcept {
  if (this != &o) {
    if (base_) hwloc_free(topo_->raw(), base_, mapped_);
    topo_ = o.topo_; base_ = o.base_; data_ = o.data_; size_ = o.size_; mapped_ = o.mapped_;
    placement_ = o.placement_; madvised_ = o.madvised_;
    o.base_ = o.data_ = nullptr;
    o.size_ = o.mapped_ = 0;
  }
  return *this;
}

std::int64_t Buffer::anon_huge_bytes() const {
  std::ifstream f("/proc/self/smaps");
  if (!f || !data_) return -1;
  const auto lo = reinterpret_cast<std::uintptr_t>(data_);
  const auto hi = lo + size_;
  std::string line;
  bool inside = false;
  std::int64_t huge = 0, rss = 0;
  while (std::getline(f, line)) {
    unsigned long a = 0, b = 0;
    if (std::sscanf(line.c_str(), "%lx-%lx ", &a, &b) == 2 && line.find(':') > line.find(' ')) {
      inside = a < hi && b > lo;  // a mapping header line; VMAs may extend past our range
      continue;
    }
    if (!inside) continue;
    long long kb = 0;
    if (std::sscanf(line.c_str(), "AnonHugePages: %lld kB", &kb) == 1) huge += kb * 1024;
    else if (std::sscanf(line.c_str(), "Rss: %lld kB", &kb) == 1) rss += kb * 1024;
  }
  return rss == 0 ? -1 : huge;
}

ThpBacking Buffer::thp_backing() const {
  const std::int64_t huge = anon_huge_bytes();
  if (huge < 0) return {};
  // A VMA reaching past the buffer can count a few huge pages that are not ours.
  const double share = std::min(1.0, static_cast<double>(huge) / static_cast<double>(size_));
  return {huge > 0 ? ThpState::kYes : ThpState::kNo, share};
}

}  // namespace kvb
