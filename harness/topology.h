// Machine topology as hwloc sees it: packages, NUMA nodes, cores, PUs and every cache
// instance with the PUs sharing it. In a VM hwloc and the OS (/sys, /proc) can disagree;
// the disagreements are recorded, not hidden.
#pragma once
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

struct hwloc_topology;  // hwloc_topology_t is `struct hwloc_topology*`

namespace kvb {

enum class CacheType { kData, kInstruction, kUnified };

struct CacheInstance {
  int level = 0;                  // 1, 2, 3, ...
  CacheType type = CacheType::kUnified;
  std::int64_t bytes = 0;         // size of this one instance
  int line_bytes = 0;
  std::vector<unsigned> pus;      // OS indices of the PUs that share it
};

class Topology {
 public:
  // Loads the topology of this machine (throws HarnessError if hwloc fails).
  static std::unique_ptr<Topology> discover();
  ~Topology();
  Topology(const Topology&) = delete;
  Topology& operator=(const Topology&) = delete;

  int packages() const noexcept { return packages_; }
  int numa_nodes() const noexcept { return numa_nodes_; }
  int cores() const noexcept { return cores_; }
  int pu_count() const noexcept { return static_cast<int>(pus_.size()); }
  const std::vector<unsigned>& pus() const noexcept { return pus_; }  // OS indices, hwloc order
  std::int64_t memory_bytes() const noexcept { return memory_bytes_; }
  const std::vector<CacheInstance>& caches() const noexcept { return caches_; }

  // Size of one instance of the data (or unified) cache at `level`, if the level exists.
  std::optional<std::int64_t> cache_bytes(int level) const;
  int last_level() const noexcept;  // deepest data/unified cache level, 0 if none
  // Sum of last-level cache instances touched by `pus` (all PUs if empty).
  std::int64_t llc_bytes_for(const std::vector<unsigned>& pus) const;
  // Data/unified cache size at `level` summed over the instances touched by `pus`.
  std::int64_t cache_bytes_for(int level, const std::vector<unsigned>& pus) const;
  // NUMA node (OS index) holding PU `pu`; 0 if unknown.
  unsigned numa_node_of(unsigned pu) const;
  bool has_pu(unsigned pu) const noexcept;

  // Replaces the last-level cache instances by one instance of `bytes` shared by all their PUs,
  // where hwloc's size is not what a core can use (a guest shown its host's socket-wide L3):
  // `source` says where the size came from ("measured", "option"), `why` is recorded with the
  // disagreements. Everything sized from the LLC afterwards (ceilings, auto contexts, CSV) uses it.
  // Where hwloc shows no cache beyond the L2 (a guest whose CPUID cache leaves it could not read;
  // the 2-vCPU Zen 5 guest's hwloc missed its L3 in 6 of 29 runs within an hour), the instance is
  // added as the next level instead, and hwloc_cache_bytes has nothing for that level.
  void replace_llc(std::int64_t bytes, const std::string& source, const std::string& why);
  const std::string& llc_source() const noexcept { return llc_source_; }  // "hwloc" unless replaced
  // cache_bytes as hwloc reported it, before any replacement (the machine's identity in the CSV).
  std::optional<std::int64_t> hwloc_cache_bytes(int level) const;
  // llc_bytes_for as hwloc reported it, before any replacement.
  std::int64_t hwloc_llc_bytes_for(const std::vector<unsigned>& pus) const;

  // Where hwloc and the OS (/sys/devices/system, /proc/meminfo) disagree, one line each.
  const std::vector<std::string>& os_disagreements() const noexcept { return disagreements_; }
  // Multi-line human-readable description (`kvbench topo`).
  std::string describe() const;

  hwloc_topology* raw() const noexcept { return topo_; }

 private:
  Topology() = default;
  hwloc_topology* topo_ = nullptr;
  int packages_ = 0, numa_nodes_ = 0, cores_ = 0;
  std::vector<unsigned> pus_;
  std::int64_t memory_bytes_ = 0;
  std::vector<CacheInstance> caches_;
  std::vector<std::string> disagreements_;
  std::string llc_source_ = "hwloc";
  std::vector<CacheInstance> hwloc_llc_;  // hwloc's LLC instances, once replaced
  int added_level_ = 0;                   // the level replace_llc added where hwloc had none
};

}  // namespace kvb
