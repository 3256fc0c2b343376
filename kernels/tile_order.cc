#include "kernels/tile_order.h"

#include <atomic>

namespace kvb {

namespace {
std::atomic<TileOrder> g_tile_order{TileOrder::kLinear};
}  // namespace

TileOrder tile_order() noexcept { return g_tile_order.load(std::memory_order_relaxed); }

void set_tile_order(TileOrder o) noexcept { g_tile_order.store(o, std::memory_order_relaxed); }

const char* tile_order_name(TileOrder o) noexcept {
  switch (o) {
    case TileOrder::kLinear: return "linear";
    case TileOrder::kHalves: return "halves";
  }
  return "?";
}

bool parse_tile_order(const std::string& name, TileOrder* out) noexcept {
  for (TileOrder o : {TileOrder::kLinear, TileOrder::kHalves}) {
    if (name == tile_order_name(o)) {
      *out = o;
      return true;
    }
  }
  return false;
}

}  // namespace kvb
