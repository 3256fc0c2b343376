#include "analysis/ceiling_change.h"

#include <algorithm>
#include <cmath>

#include "analysis/text_table.h"

namespace kvb {

std::string ceiling_change_note(std::optional<double> base_ceiling_gbps, std::optional<double> new_ceiling_gbps,
                                std::optional<double> base_pct, std::optional<double> new_pct) {
  if (!base_ceiling_gbps || !new_ceiling_gbps || *base_ceiling_gbps <= 0 || *new_ceiling_gbps <= 0) return "";
  const double apart = std::max(*base_ceiling_gbps, *new_ceiling_gbps) / std::min(*base_ceiling_gbps, *new_ceiling_gbps);
  if (!(apart > kCeilingMovedRatio)) return "";
  const auto pct = [](std::optional<double> x) { return x ? std::to_string(std::lround(*x)) + "%" : std::string("-"); };
  return "ceiling " + format_number(*base_ceiling_gbps, 3) + " -> " + format_number(*new_ceiling_gbps, 3) + " GB/s, " +
         pct(base_pct) + " -> " + pct(new_pct) + " of it";
}

bool crossings_apart(double a_ns, double b_ns) {
  if (!(a_ns > 0) || !(b_ns > 0)) return false;
  return std::max(a_ns, b_ns) / std::min(a_ns, b_ns) > kBarrierMovedRatio;
}

std::string barrier_change_note(std::optional<double> base_ns, std::optional<double> new_ns) {
  if (!base_ns || !new_ns || !crossings_apart(*base_ns, *new_ns)) return "";
  return "barrier crossing " + format_number(*base_ns, 3) + " -> " + format_number(*new_ns, 3) + " ns";
}

std::string barrier_moved_note(std::optional<double> before_ns, std::optional<double> after_ns) {
  if (!before_ns || !after_ns || !crossings_apart(*before_ns, *after_ns)) return "";
  return "barrier crossing moved " + format_number(*before_ns, 3) + " -> " + format_number(*after_ns, 3) + " ns";
}

}  // namespace kvb
