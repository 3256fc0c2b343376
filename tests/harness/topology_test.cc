#include "harness/topology.h"

#include <gtest/gtest.h>

namespace kvb {
namespace {

TEST(Topology, SeesPusCoresAndCaches) {
  auto topo = Topology::discover();
  EXPECT_GE(topo->packages(), 1);
  EXPECT_GE(topo->numa_nodes(), 1);
  EXPECT_GE(topo->cores(), 1);
  EXPECT_GE(topo->pu_count(), topo->cores());
  EXPECT_GT(topo->memory_bytes(), 0);
  ASSERT_FALSE(topo->caches().empty());
  for (const CacheInstance& c : topo->caches()) {
    EXPECT_GE(c.level, 1);
    EXPECT_GT(c.bytes, 0);
    EXPECT_FALSE(c.pus.empty());
    for (unsigned pu : c.pus) EXPECT_TRUE(topo->has_pu(pu));
  }
  ASSERT_TRUE(topo->cache_bytes(1).has_value());
  EXPECT_GE(topo->last_level(), 1);
  EXPECT_GE(topo->llc_bytes_for({}), *topo->cache_bytes(topo->last_level()));
}

TEST(Topology, DescribeNamesEveryCacheLevelAndTheOsComparison) {
  auto topo = Topology::discover();
  const std::string d = topo->describe();
  EXPECT_NE(d.find("PU(s)"), std::string::npos);
  EXPECT_NE(d.find("NUMA node"), std::string::npos);
  for (int level = 1; level <= topo->last_level(); ++level)
    EXPECT_NE(d.find("L" + std::to_string(level) + " "), std::string::npos) << d;
  // Either agreement is stated or every disagreement is listed.
  if (topo->os_disagreements().empty()) {
    EXPECT_NE(d.find("agrees"), std::string::npos);
  }
  for (const std::string& line : topo->os_disagreements()) EXPECT_NE(d.find(line), std::string::npos);
}

}  // namespace
}  // namespace kvb
