// A series is one configuration swept over working set / context: every configuration column
// but context and ws_level is fixed (and the run). Knees and most figures are drawn per series.
#pragma once
#include <string>
#include <vector>

#include "analysis/knee_detection.h"
#include "analysis/machine_results.h"

namespace kvb {

struct ResultSeries {
  std::string key;
  std::string label;                     // "decode_step fp32 head_major 2T"
  std::vector<const ResultRow*> rows;    // sorted by working_set_bytes, then context
};

std::string series_key(const ResultRow& row);
std::string series_label(const ResultRow& row);

// Series of the machine's valid summary rows, in first-seen order.
std::vector<ResultSeries> kernel_series(const MachineResults& m);   // non-ceiling, valid kernels
std::vector<ResultSeries> ceiling_read_series(const MachineResults& m);

// The machine's caches from its metadata (L1d, L2, LLC), for knee attribution.
std::vector<CacheLevel> cache_levels(const MachineResults& m);

struct SeriesKnee {
  const ResultSeries* series = nullptr;
  Knee knee;
};
std::vector<SeriesKnee> series_knees(const std::vector<ResultSeries>& series,
                                     const std::vector<CacheLevel>& caches, double drop);

}  // namespace kvb
