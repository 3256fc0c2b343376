#include "harness/memory.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>

#include "harness/error.h"
#include "harness/topology.h"

namespace kvb {
namespace {

TEST(Placement, ParsesAndRejects) {
  for (const char* s : {"first_touch", "bind:0", "interleave"}) EXPECT_EQ(placement_name(parse_placement(s)), s);
  EXPECT_THROW(parse_placement("local"), HarnessError);
  EXPECT_THROW(parse_placement("bind:"), HarnessError);
  EXPECT_THROW(parse_placement("bind:x"), HarnessError);
}

TEST(Buffer, PageAlignedWritableAndReportsThp) {
  auto topo = Topology::discover();
  const std::size_t bytes = 8u << 20;
  Buffer b(*topo, bytes, parse_placement("first_touch"));
  ASSERT_NE(b.data(), nullptr);
  EXPECT_EQ(reinterpret_cast<std::uintptr_t>(b.data()) % 4096, 0u);
  EXPECT_EQ(b.size(), bytes);
  EXPECT_EQ(b.thp(), ThpState::kUnknown);  // nothing faulted in yet
  std::memset(b.data(), 1, bytes);
  const ThpState s = b.thp();
  EXPECT_NE(s, ThpState::kUnknown);
  if (s == ThpState::kYes) {
    EXPECT_GT(b.anon_huge_bytes(), 0);
  }
  const ThpBacking backing = b.thp_backing();
  EXPECT_EQ(backing.state, s);
  EXPECT_GE(backing.share, 0.0);
  EXPECT_LE(backing.share, 1.0);
  EXPECT_EQ(backing.share > 0, s == ThpState::kYes);
}

// The share counts huge pages over the whole buffer: touching a quarter of it can back at most
// that quarter (plus the one 2 MiB page a VMA reaching past the buffer may add).
TEST(Buffer, ThpShareCountsOnlyTheTouchedPart) {
  auto topo = Topology::discover();
  const std::size_t bytes = 32u << 20;
  Buffer b(*topo, bytes, parse_placement("first_touch"));
  std::memset(b.data(), 1, bytes / 4);
  const ThpBacking quarter = b.thp_backing();
  ASSERT_NE(quarter.state, ThpState::kUnknown);
  EXPECT_LE(quarter.share, 0.25 + (2.0 * (1 << 20)) / bytes);
  std::memset(b.data(), 1, bytes);
  const ThpBacking whole = b.thp_backing();
  EXPECT_GE(whole.share, quarter.share);
  if (quarter.state == ThpState::kYes) {
    EXPECT_GT(whole.share, 0.25 + (2.0 * (1 << 20)) / bytes);
  }
}

TEST(Buffer, BindAndInterleaveOnNodeZero) {
  auto topo = Topology::discover();
  Buffer bound(*topo, 1u << 20, parse_placement("bind:0"));
  std::memset(bound.data(), 2, 1u << 20);
  Buffer inter(*topo, 1u << 20, parse_placement("interleave"));
  std::memset(inter.data(), 3, 1u << 20);
  EXPECT_THROW(Buffer(*topo, 1u << 20, parse_placement("bind:4096")), HarnessError);
}

// The commands check a placement once before measuring: node 0 passes (every machine has it), a
// node far past any machine's does not, and the other placements never throw.
TEST(Placement, CheckRefusesOnlyANodeHwlocDoesNotSee) {
  auto topo = Topology::discover();
  for (const char* ok : {"first_touch", "interleave", "bind:0"})
    EXPECT_NO_THROW(check_placement(*topo, parse_placement(ok))) << ok;
  const std::string missing = "bind:4096";
  try {
    check_placement(*topo, parse_placement(missing));
    FAIL() << missing << " passed";
  } catch (const HarnessError& e) {
    EXPECT_NE(std::string(e.what()).find(missing + ": no such NUMA node"), std::string::npos) << e.what();
  }
}

TEST(Buffer, ImpossibleSizeIsAClearError) {
  auto topo = Topology::discover();
  try {
    Buffer b(*topo, std::size_t{1} << 60, parse_placement("first_touch"));
    FAIL() << "2^60 bytes allocated";
  } catch (const HarnessError& e) {
    EXPECT_NE(std::string(e.what()).find("cannot allocate"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace kvb
