// Topologies from hwloc's synthetic syntax, for tests whose subject is the cache levels: the
// 2-vCPU Zen 5 guest's hwloc shows its L3 only at times (6 of 29 runs within an hour had none),
// so tests on the discovered topology would skip by chance.
#pragma once
#include <cstdlib>
#include <memory>

#include "harness/topology.h"

namespace kvb::testing {

// Two cores, each with its own 48 KiB L1d and 1 MiB L2, sharing one 32 MiB L3.
inline constexpr const char* kTwoCoresSharedL3 =
    "Package:1 L3Cache:1(size=33554432) L2Cache:2(size=1048576) L1dCache:1(size=49152) Core:1 PU:1";
// The same two cores with no cache beyond the L2.
inline constexpr const char* kTwoCoresNoL3 = "Package:1 L2Cache:2(size=1048576) L1dCache:1(size=49152) Core:1 PU:1";

// The topology `spec` describes (HWLOC_SYNTHETIC set only while it is discovered).
inline std::unique_ptr<Topology> synthetic_topology(const char* spec) {
  ::setenv("HWLOC_SYNTHETIC", spec, 1);
  auto topo = Topology::discover();
  ::unsetenv("HWLOC_SYNTHETIC");
  return topo;
}

}  // namespace kvb::testing
