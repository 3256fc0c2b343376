// The order in which the attention kernels visit the tiles of a range of positions: a
// process-wide setting, like the prefetch hint (kernels/sw_prefetch.h): the kernels read it on
// every call, the command line sets it once (kvbench run --tile-order), and the CSV's isa column
// names it where it is not the default (linear).
#pragma once
#include <string>

namespace kvb {

enum class TileOrder {
  kLinear,  // tile after tile from the range's first position: one K and one V stream
  // The range's two halves in turn, a tile of each (0, h, 1, h + 1, ...): two K and two V
  // streams, for CPUs whose cores read more from four streams than from two
  // (results/xeon-spr-16c-kvm/read-streams/). One online softmax runs over both halves
  // (attention does not depend on the order of positions), so the result is the same up to
  // rounding. Ranges of fewer than four tiles stay linear.
  kHalves,
};

TileOrder tile_order() noexcept;
void set_tile_order(TileOrder o) noexcept;

// "linear", "halves"; for the CSV and messages.
const char* tile_order_name(TileOrder o) noexcept;
bool parse_tile_order(const std::string& name, TileOrder* out) noexcept;

}  // namespace kvb
