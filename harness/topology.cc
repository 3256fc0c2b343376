#include "harness/topology.h"

#include <hwloc.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstdio>
#include <fstream>
#include <set>
#include <sstream>
#include <string>

#include "harness/error.h"

namespace kvb {
namespace {

std::vector<unsigned> pus_of(hwloc_const_cpuset_t set) {
  std::vector<unsigned> out;
  unsigned i;
  hwloc_bitmap_foreach_begin(i, set) { out.push_back(i); }
  hwloc_bitmap_foreach_end();
  return out;
}

std::string read_line(const std::string& path) {
  std::ifstream f(path);
  std::string s;
  if (f) std::getline(f, s);
  return s;
}

// Sizes in /sys are like "48K", "2048K", "516096K".
std::int64_t parse_sys_size(const std::string& s) {
  if (s.empty()) return -1;
  std::int64_t v = 0;
  std::size_t i = 0;
  while (i < s.size() && s[i] >= '0' && s[i] <= '9') v = v * 10 + (s[i++] - '0');
  if (i < s.size() && (s[i] == 'K' || s[i] == 'k')) v <<= 10;
  if (i < s.size() && (s[i] == 'M' || s[i] == 'm')) v <<= 20;
  return v;
}

std::string human_bytes(std::int64_t b) {
  char buf[64];
  if (b >= (1LL << 30) && b % (1LL << 20) == 0 && b >= (16LL << 30))
    std::snprintf(buf, sizeof buf, "%.1f GiB", b / double(1LL << 30));
  else if (b >= (1LL << 20))
    std::snprintf(buf, sizeof buf, "%.1f MiB", b / double(1LL << 20));
  else
    std::snprintf(buf, sizeof buf, "%lld KiB", static_cast<long long>(b >> 10));
  return buf;
}

std::string join(const std::vector<unsigned>& v) {
  std::string s;
  for (std::size_t i = 0; i < v.size(); ++i) s += (i ? "," : "") + std::to_string(v[i]);
  return s;
}

// Whether any of `pus` shares cache instance c.
bool touches(const CacheInstance& c, const std::vector<unsigned>& pus) {
  for (unsigned p : pus)
    if (std::find(c.pus.begin(), c.pus.end(), p) != c.pus.end()) return true;
  return false;
}

const char* type_name(CacheType t) {
  switch (t) {
    case CacheType::kData: return "data";
    case CacheType::kInstruction: return "instruction";
    case CacheType::kUnified: return "unified";
  }
  return "?";
}

}  // namespace

std::unique_ptr<Topology> Topology::discover() {
  std::unique_ptr<Topology> t(new Topology());
  if (hwloc_topology_init(&t->topo_) != 0) throw HarnessError("hwloc_topology_init failed");
  hwloc_topology_set_io_types_filter(t->topo_, HWLOC_TYPE_FILTER_KEEP_NONE);
  hwloc_topology_set_icache_types_filter(t->topo_, HWLOC_TYPE_FILTER_KEEP_ALL);  // report every cache
  if (hwloc_topology_load(t->topo_) != 0) {
    hwloc_topology_destroy(t->topo_);
    t->topo_ = nullptr;
    throw HarnessError("hwloc_topology_load failed");
  }
  hwloc_topology_t h = t->topo_;
  t->packages_ = hwloc_get_nbobjs_by_type(h, HWLOC_OBJ_PACKAGE);
  t->numa_nodes_ = hwloc_get_nbobjs_by_type(h, HWLOC_OBJ_NUMANODE);
  t->cores_ = hwloc_get_nbobjs_by_type(h, HWLOC_OBJ_CORE);
  for (hwloc_obj_t pu = nullptr; (pu = hwloc_get_next_obj_by_type(h, HWLOC_OBJ_PU, pu));)
    t->pus_.push_back(pu->os_index);
  t->memory_bytes_ = static_cast<std::int64_t>(hwloc_get_root_obj(h)->total_memory);

  const hwloc_obj_type_t cache_types[] = {HWLOC_OBJ_L1CACHE,  HWLOC_OBJ_L2CACHE,  HWLOC_OBJ_L3CACHE,
                                          HWLOC_OBJ_L4CACHE,  HWLOC_OBJ_L5CACHE,  HWLOC_OBJ_L1ICACHE,
                                          HWLOC_OBJ_L2ICACHE, HWLOC_OBJ_L3ICACHE};
  for (hwloc_obj_type_t type : cache_types) {
    for (hwloc_obj_t c = nullptr; (c = hwloc_get_next_obj_by_type(h, type, c));) {
      CacheInstance ci;
      ci.level = static_cast<int>(c->attr->cache.depth);
      ci.type = c->attr->cache.type == HWLOC_OBJ_CACHE_DATA          ? CacheType::kData
                : c->attr->cache.type == HWLOC_OBJ_CACHE_INSTRUCTION ? CacheType::kInstruction
                                                                     : CacheType::kUnified;
      ci.bytes = static_cast<std::int64_t>(c->attr->cache.size);
      ci.line_bytes = static_cast<int>(c->attr->cache.linesize);
      ci.pus = pus_of(c->cpuset);
      t->caches_.push_back(std::move(ci));
    }
  }

  // Compare with what the OS says directly; a VM's hwloc view can differ (e.g. memory only
  // partly attached to NUMA nodes, virtual cache sizes).
  const std::string online = read_line("/sys/devices/system/cpu/online");
  {
    // Count PUs in a list like "0-1,4".
    int n = 0;
    std::stringstream ss(online);
    std::string part;
    while (std::getline(ss, part, ',')) {
      unsigned a = 0, b = 0;
      if (std::sscanf(part.c_str(), "%u-%u", &a, &b) == 2) n += static_cast<int>(b - a + 1);
      else if (std::sscanf(part.c_str(), "%u", &a) == 1) ++n;
    }
    if (!online.empty() && n != t->pu_count())
      t->disagreements_.push_back("PUs: hwloc " + std::to_string(t->pu_count()) +
                                  ", /sys/devices/system/cpu/online " + online);
  }
  {
    std::ifstream mi("/proc/meminfo");
    std::string key;
    long long kb = 0;
    while (mi >> key >> kb) {
      if (key == "MemTotal:") {
        const std::int64_t os = kb * 1024LL;
        // hwloc sums NUMA-node memory; allow 2% for firmware/kernel reservations.
        if (std::abs(static_cast<double>(os - t->memory_bytes_)) > 0.02 * os)
          t->disagreements_.push_back("memory: hwloc (NUMA nodes) " + human_bytes(t->memory_bytes_) +
                                      ", /proc/meminfo MemTotal " + human_bytes(os));
        break;
      }
      mi.ignore(1 << 10, '\n');
    }
  }
  if (!t->pus_.empty()) {
    const std::string base = "/sys/devices/system/cpu/cpu" + std::to_string(t->pus_[0]) + "/cache/index";
    for (int idx = 0; idx < 8; ++idx) {
      const std::string dir = base + std::to_string(idx) + "/";
      const std::string lvl = read_line(dir + "level");
      if (lvl.empty()) break;
      const std::string type = read_line(dir + "type");
      const std::int64_t size = parse_sys_size(read_line(dir + "size"));
      const int level = std::atoi(lvl.c_str());
      const CacheType ct = type == "Data" ? CacheType::kData
                           : type == "Instruction" ? CacheType::kInstruction
                                                   : CacheType::kUnified;
      bool found = false;
      for (const CacheInstance& c : t->caches_) {
        if (c.level != level || c.type != ct) continue;
        if (std::find(c.pus.begin(), c.pus.end(), t->pus_[0]) == c.pus.end()) continue;
        found = true;
        if (c.bytes != size)
          t->disagreements_.push_back("L" + lvl + " " + type + " size: hwloc " + human_bytes(c.bytes) +
                                      ", /sys " + human_bytes(size));
      }
      if (!found)
        t->disagreements_.push_back("L" + lvl + " " + type + " cache in /sys, absent from hwloc");
    }
  }
  return t;
}

Topology::~Topology() {
  if (topo_) hwloc_topology_destroy(topo_);
}

std::optional<std::int64_t> Topology::cache_bytes(int level) const {
  for (const CacheInstance& c : caches_)
    if (c.level == level && c.type != CacheType::kInstruction) return c.bytes;
  return std::nullopt;
}

int Topology::last_level() const noexcept {
  int l = 0;
  for (const CacheInstance& c : caches_)
    if (c.type != CacheType::kInstruction) l = std::max(l, c.level);
  return l;
}

std::int64_t Topology::cache_bytes_for(int level, const std::vector<unsigned>& pus) const {
  const std::vector<unsigned>& want = pus.empty() ? pus_ : pus;
  std::int64_t sum = 0;
  for (const CacheInstance& c : caches_) {
    if (c.level == level && c.type != CacheType::kInstruction && touches(c, want)) sum += c.bytes;
  }
  return sum;
}

std::int64_t Topology::llc_bytes_for(const std::vector<unsigned>& pus) const {
  const int l = last_level();
  return l ? cache_bytes_for(l, pus) : 0;
}

void Topology::replace_llc(std::int64_t bytes, const std::string& source, const std::string& why) {
  const int l = last_level();
  if (l == 0 || bytes <= 0) return;
  if (l < 3 && added_level_ == 0) {  // no shared level to replace: the given one joins the caches
    CacheInstance added;
    added.level = l + 1;
    added.bytes = bytes;
    for (const CacheInstance& c : caches_)
      if (c.level == l && c.type != CacheType::kInstruction) added.line_bytes = c.line_bytes;
    added.pus = pus_;
    caches_.push_back(std::move(added));
    added_level_ = l + 1;
    llc_source_ = source;
    disagreements_.push_back(why);
    return;
  }
  CacheInstance merged;
  std::set<unsigned> pus;
  std::vector<CacheInstance> kept;
  const bool first_replacement = llc_source_ == "hwloc";
  for (CacheInstance& c : caches_) {
    if (c.level != l || c.type == CacheType::kInstruction) {
      kept.push_back(std::move(c));
      continue;
    }
    if (first_replacement) hwloc_llc_.push_back(c);
    merged.level = c.level;
    merged.type = c.type;
    merged.line_bytes = c.line_bytes;
    pus.insert(c.pus.begin(), c.pus.end());
  }
  merged.bytes = bytes;
  merged.pus.assign(pus.begin(), pus.end());
  kept.push_back(std::move(merged));
  caches_ = std::move(kept);
  llc_source_ = source;
  disagreements_.push_back(why);
}

std::optional<std::int64_t> Topology::hwloc_cache_bytes(int level) const {
  if (added_level_ != 0 && level == added_level_) return std::nullopt;
  if (llc_source_ != "hwloc" && level == last_level() && !hwloc_llc_.empty()) return hwloc_llc_.front().bytes;
  return cache_bytes(level);
}

std::int64_t Topology::hwloc_llc_bytes_for(const std::vector<unsigned>& pus) const {
  if (llc_source_ == "hwloc") return llc_bytes_for(pus);
  const std::vector<unsigned>& want = pus.empty() ? pus_ : pus;
  std::int64_t sum = 0;
  for (const CacheInstance& c : hwloc_llc_)
    if (touches(c, want)) sum += c.bytes;
  return sum;
}

unsigned Topology::numa_node_of(unsigned pu) const {
  hwloc_obj_t obj = hwloc_get_pu_obj_by_os_index(topo_, pu);
  if (!obj) return 0;
  hwloc_obj_t node = nullptr;
  while ((node = hwloc_get_next_obj_by_type(topo_, HWLOC_OBJ_NUMANODE, node)))
    if (hwloc_bitmap_isset(node->cpuset, pu)) return node->os_index;
  return 0;
}

bool Topology::has_pu(unsigned pu) const noexcept {
  return std::find(pus_.begin(), pus_.end(), pu) != pus_.end();
}

std::string Topology::describe() const {
  std::ostringstream o;
  o << "hwloc " << HWLOC_VERSION << ": " << packages_ << " package(s), " << numa_nodes_
    << " NUMA node(s), " << cores_ << " core(s), " << pu_count() << " PU(s) [" << join(pus_)
    << "], memory " << human_bytes(memory_bytes_) << "\n";
  for (hwloc_obj_t n = nullptr; (n = hwloc_get_next_obj_by_type(topo_, HWLOC_OBJ_NUMANODE, n));)
    o << "  NUMA node " << n->os_index << ": " << human_bytes(static_cast<std::int64_t>(n->attr->numanode.local_memory))
      << ", PUs " << join(pus_of(n->cpuset)) << "\n";
  for (const CacheInstance& c : caches_)
    o << "  L" << c.level << " " << type_name(c.type) << " " << human_bytes(c.bytes) << " (line "
      << c.line_bytes << " B), PUs " << join(c.pus) << "\n";
  if (disagreements_.empty()) {
    o << "  hwloc agrees with /sys and /proc\n";
  } else {
    for (const std::string& d : disagreements_) o << "  hwloc vs OS: " << d << "\n";
  }
  return o.str();
}

}  // namespace kvb
