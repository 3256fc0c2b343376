#include "analysis/knee_detection.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace kvb {

std::vector<Knee> find_knees(std::vector<SeriesPoint> points, double drop_fraction,
                             const std::vector<CacheLevel>& caches) {
  std::sort(points.begin(), points.end(), [](const SeriesPoint& a, const SeriesPoint& b) {
    return a.working_set_bytes < b.working_set_bytes;
  });
  std::vector<Knee> knees;
  for (std::size_t i = 0; i + 1 < points.size(); ++i) {
    const SeriesPoint& before = points[i];
    const SeriesPoint& after = points[i + 1];
    if (before.gbps <= 0 || after.working_set_bytes <= before.working_set_bytes) continue;
    const double drop = 1 - after.gbps / before.gbps;
    if (drop < drop_fraction) continue;
    Knee k;
    k.working_set_bytes = before.working_set_bytes;
    k.next_working_set_bytes = after.working_set_bytes;
    k.gbps_before = before.gbps;
    k.gbps_after = after.gbps;
    k.drop = drop;
    double best = std::numeric_limits<double>::infinity();
    for (const CacheLevel& c : caches) {
      if (c.bytes <= 0) continue;
      const double distance = std::fabs(std::log(k.working_set_bytes / c.bytes));
      if (distance < best) {
        best = distance;
        k.nearest_cache = c.name;
        k.nearest_cache_bytes = c.bytes;
        k.ws_over_cache = k.working_set_bytes / c.bytes;
      }
    }
    knees.push_back(k);
  }
  return knees;
}

}  // namespace kvb
