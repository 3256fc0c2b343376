#include "analysis/roofline.h"

#include <algorithm>

namespace kvb {

std::optional<RooflinePoint> roofline_point(std::optional<double> bytes_read,
                                            std::optional<double> bytes_written,
                                            std::optional<double> flops,
                                            std::optional<double> ns_per_step) {
  if (!flops || !ns_per_step || (!bytes_read && !bytes_written)) return std::nullopt;
  const double bytes = bytes_read.value_or(0) + bytes_written.value_or(0);
  if (bytes <= 0 || *flops <= 0 || *ns_per_step <= 0) return std::nullopt;
  RooflinePoint p;
  p.ai_flop_per_byte = *flops / bytes;
  p.gflops = *flops / *ns_per_step;  // flop per ns = GFLOP/s
  p.gbps = bytes / *ns_per_step;     // byte per ns = GB/s (decimal)
  return p;
}

double attainable_gflops(double ai_flop_per_byte, double roof_gbps, std::optional<double> peak_gflops) {
  const double memory_bound = ai_flop_per_byte * roof_gbps;
  return peak_gflops ? std::min(memory_bound, *peak_gflops) : memory_bound;
}

}  // namespace kvb
