// How worker threads are placed on PUs: `compact`, `scatter`, `none` or `pus:0+2+4`.
#pragma once
#include <string>
#include <string_view>
#include <vector>

namespace kvb {

class Topology;

enum class PinKind { kNone, kCompact, kScatter, kExplicit };

struct PinPolicy {
  PinKind kind = PinKind::kCompact;
  std::vector<unsigned> pus;  // explicit list (OS indices), only for kExplicit
};

// Parses the CSV/CLI spelling; throws HarnessError naming the bad text.
PinPolicy parse_pin_policy(std::string_view text);
std::string pin_policy_name(const PinPolicy& p);  // inverse of parse_pin_policy

// PUs (OS indices) the workers are bound to, worker i -> result[i]; empty for kNone.
// compact fills the PUs sharing a cache/NUMA domain first (hwloc order); scatter spreads
// workers round-robin over the widest domains (packages, NUMA nodes, LLCs, cores).
// Throws HarnessError for more threads than PUs or an unknown/duplicate PU.
std::vector<unsigned> choose_pus(const Topology& topo, int threads, const PinPolicy& p);

}  // namespace kvb
