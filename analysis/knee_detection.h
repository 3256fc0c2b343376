// Knees: where attained bandwidth falls off a cliff as the working set outgrows a cache level.
#pragma once
#include <string>
#include <vector>

namespace kvb {

inline constexpr double kDefaultKneeDrop = 0.15;  // a knee is a >= 15% drop between neighbours

struct SeriesPoint {
  double working_set_bytes = 0;
  double gbps = 0;
};

struct CacheLevel {
  std::string name;  // "L1d", "L2", "LLC"
  double bytes = 0;
};

struct Knee {
  double working_set_bytes = 0;  // last working set before the drop (still on the faster plateau)
  double next_working_set_bytes = 0;  // first working set after the drop
  double gbps_before = 0;
  double gbps_after = 0;
  double drop = 0;                 // 1 - after/before
  std::string nearest_cache;       // cache whose size is closest on a log scale ("" if none known)
  double nearest_cache_bytes = 0;
  double ws_over_cache = 0;        // working_set_bytes / nearest_cache_bytes
};

// Points may come in any order; they are sorted by working set. Neighbours whose bandwidth
// falls by at least `drop_fraction` form a knee.
std::vector<Knee> find_knees(std::vector<SeriesPoint> points, double drop_fraction,
                             const std::vector<CacheLevel>& caches);

}  // namespace kvb
