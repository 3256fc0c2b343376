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

ReadCeilingMethod read_ceiling_method(const std::vector<std::vector<ResultRow>>& runs) {
  std::optional<ReadCeilingMethod> seen;
  for (const auto& run : runs) {
    for (const ResultRow& r : run) {
      if (r.str(Col::benchmark) != "ceiling_read") continue;
      const ReadCeilingMethod m = r.num(Col::read_four_streams_gbps) ? ReadCeilingMethod::kFourStreams
                                  : r.num(Col::read_two_streams_gbps) ? ReadCeilingMethod::kTwoStreams
                                  : r.num(Col::read_window_gbps)      ? ReadCeilingMethod::kTwoLoops
                                                                      : ReadCeilingMethod::kPlainLoop;
      if (seen && *seen != m) return ReadCeilingMethod::kMixed;
      seen = m;
    }
  }
  return seen.value_or(ReadCeilingMethod::kUnknown);
}

std::string read_ceiling_method_note(ReadCeilingMethod base, ReadCeilingMethod next) {
  if (base == next || base == ReadCeilingMethod::kUnknown || next == ReadCeilingMethod::kUnknown) return "";
  const auto said = [](ReadCeilingMethod m) {
    switch (m) {
      case ReadCeilingMethod::kPlainLoop: return "the plain loop alone";
      case ReadCeilingMethod::kTwoLoops: return "the faster of the plain loop and the kernels' prefetch window";
      case ReadCeilingMethod::kTwoStreams:
        return "the fastest of the plain loop, the kernels' prefetch window where they prefetch, and two streams";
      case ReadCeilingMethod::kFourStreams:
        return "the fastest of the plain loop, the kernels' prefetch window where they prefetch, and two and four "
               "streams";
      default: return "measured one way in some runs and another in others";
    }
  };
  return std::string("The two sides measured their read ceilings differently: base's `ceiling_read` rows are ") +
         said(base) + ", new's " + said(next) +
         " (read_window_gbps since main 81a1e69, read_two_streams_gbps since 2026-12-06e, read_four_streams_gbps "
         "since 2026-12-06g). Their ceiling_read rows, pct_of_ceiling and held_ratio differ by the method as well as "
         "the machine: on the Sapphire Rapids guest the window read its DRAM ceilings 1.011-1.037x the plain loop's "
         "and one core read up to 1.3x as much from four streams as from two, and on the Zen 3 guest one core read "
         "1.13-1.19x as much from two streams as from one.\n";
}

}  // namespace kvb
