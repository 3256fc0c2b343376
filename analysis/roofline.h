// Roofline model: where a kernel sits (arithmetic intensity, attained GFLOP/s) and the roofs
// (measured read bandwidth per cache level, measured FP32 FMA peak) it is bounded by.
#pragma once
#include <optional>

namespace kvb {

struct RooflinePoint {
  double ai_flop_per_byte = 0;
  double gflops = 0;
  double gbps = 0;
};

// From the cost model (bytes read + written, flops) and the measured time of one step.
// nullopt when the row lacks the data or moves no bytes / does no flops.
std::optional<RooflinePoint> roofline_point(std::optional<double> bytes_read,
                                            std::optional<double> bytes_written,
                                            std::optional<double> flops,
                                            std::optional<double> ns_per_step);

// Attainable GFLOP/s at intensity `ai` under a bandwidth roof and (if known) a compute roof.
double attainable_gflops(double ai_flop_per_byte, double roof_gbps, std::optional<double> peak_gflops);

}  // namespace kvb
