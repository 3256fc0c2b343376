#include "harness/pin_policy.h"

#include <hwloc.h>

#include <algorithm>
#include <charconv>
#include <string>

#include "harness/error.h"
#include "harness/topology.h"

namespace kvb {

PinPolicy parse_pin_policy(std::string_view text) {
  PinPolicy p;
  if (text == "compact") { p.kind = PinKind::kCompact; return p; }
  if (text == "scatter") { p.kind = PinKind::kScatter; return p; }
  if (text == "none") { p.kind = PinKind::kNone; return p; }
  if (text.substr(0, 4) == "pus:") {
    p.kind = PinKind::kExplicit;
    std::string_view rest = text.substr(4);
    while (!rest.empty()) {
      const std::size_t plus = rest.find('+');
      const std::string_view item = rest.substr(0, plus);
      unsigned v = 0;
      auto [ptr, ec] = std::from_chars(item.data(), item.data() + item.size(), v);
      if (item.empty() || ec != std::errc() || ptr != item.data() + item.size())
        throw HarnessError("bad PU '" + std::string(item) + "' in pin list '" + std::string(text) +
                           "' (expected pus:<n>+<n>...)");
      p.pus.push_back(v);
      if (plus == std::string_view::npos) break;
      rest = rest.substr(plus + 1);
      if (rest.empty()) throw HarnessError("pin list '" + std::string(text) + "' ends with '+'");
    }
    if (p.pus.empty()) throw HarnessError("empty pin list '" + std::string(text) + "'");
    return p;
  }
  throw HarnessError("unknown pin policy '" + std::string(text) +
                     "' (expected compact, scatter, none or pus:<n>+<n>...)");
}

std::string pin_policy_name(const PinPolicy& p) {
  switch (p.kind) {
    case PinKind::kNone: return "none";
    case PinKind::kCompact: return "compact";
    case PinKind::kScatter: return "scatter";
    case PinKind::kExplicit: {
      std::string s = "pus:";
      for (std::size_t i = 0; i < p.pus.size(); ++i) s += (i ? "+" : "") + std::to_string(p.pus[i]);
      return s;
    }
  }
  return "?";
}

std::vector<unsigned> choose_pus(const Topology& topo, int threads, const PinPolicy& p) {
  if (threads < 1) throw HarnessError("thread count must be >= 1, got " + std::to_string(threads));
  if (threads > topo.pu_count())
    throw HarnessError("cannot run " + std::to_string(threads) + " threads on " +
                       std::to_string(topo.pu_count()) + " PUs (one thread per PU; hwloc sees " +
                       std::to_string(topo.pu_count()) + ")");
  std::vector<unsigned> out;
  switch (p.kind) {
    case PinKind::kNone:
      return out;
    case PinKind::kCompact:
      // hwloc orders PUs depth-first, so consecutive PUs share the closest caches/NUMA node.
      out.assign(topo.pus().begin(), topo.pus().begin() + threads);
      return out;
    case PinKind::kScatter: {
      // hwloc_distrib spreads n sets across the widest branches of the tree first.
      hwloc_topology_t h = topo.raw();
      hwloc_obj_t root = hwloc_get_root_obj(h);
      std::vector<hwloc_cpuset_t> sets(static_cast<std::size_t>(threads), nullptr);  // hwloc_distrib allocates them
      hwloc_distrib(h, &root, 1, sets.data(), static_cast<unsigned>(threads), INT32_MAX, 0);
      for (auto& s : sets) {
        hwloc_bitmap_singlify(s);
        out.push_back(static_cast<unsigned>(hwloc_bitmap_first(s)));
        hwloc_bitmap_free(s);
      }
      std::vector<unsigned> sorted = out;
      std::sort(sorted.begin(), sorted.end());
      if (std::adjacent_find(sorted.begin(), sorted.end()) != sorted.end())
        throw HarnessError("scatter placement produced a duplicate PU; use an explicit pus: list");
      return out;
    }
    case PinKind::kExplicit: {
      if (static_cast<int>(p.pus.size()) != threads)
        throw HarnessError("pin list " + pin_policy_name(p) + " names " + std::to_string(p.pus.size()) +
                           " PUs for " + std::to_string(threads) + " threads");
      for (std::size_t i = 0; i < p.pus.size(); ++i) {
        if (!topo.has_pu(p.pus[i]))
          throw HarnessError("PU " + std::to_string(p.pus[i]) + " in pin list " + pin_policy_name(p) +
                             " does not exist (hwloc sees " + std::to_string(topo.pu_count()) + " PUs)");
        for (std::size_t j = 0; j < i; ++j)
          if (p.pus[j] == p.pus[i])
            throw HarnessError("PU " + std::to_string(p.pus[i]) + " appears twice in pin list " +
                               pin_policy_name(p));
      }
      return p.pus;
    }
  }
  return out;
}

}  // namespace kvb
