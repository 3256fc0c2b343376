// Which rows each report figure shows. Large sweeps (every shape x dtype x threads x cache
// state) give dozens of series; a figure a vendor engineer can read shows a few comparable
// lines per panel, so the selection is made here, apart from drawing, and is unit-tested.
#pragma once
#include <cstddef>
#include <string>
#include <vector>

#include "analysis/machine_results.h"
#include "analysis/result_series.h"

namespace kvb {

inline constexpr std::size_t kMaxSeriesPerPanel = 7;  // + 2 ceilings + knees: at most 10 legend entries

struct SeriesPanel {
  std::string title;                // "decode_step", "fp32", ...
  std::vector<ResultSeries> series;
  // LLC fit only: per series, rows of the other shapes of the same dtype and cache state
  // (drawn as unconnected points; a line through mixed shapes zigzags). Empty or series-sized.
  std::vector<std::vector<const ResultRow*>> other_shapes;
};

// A decode-type kernel row the figures compare: decode_step or attention, valid, full
// attention (no window), one sequence.
bool is_decode_kernel(const ResultRow& r);

// The most threads any decode-type kernel row ran with (0 if none).
int max_decode_threads(const MachineResults& m);

// LLC fit: one panel per benchmark; one series per (dtype, cache_state, layout) at `threads`:
// the KV shape (layers, q/kv heads, head_dim) with the most working sets, pooling runs, ordered
// by working set (ties: the larger largest working set). Where several rows share a working set
// the one with the median GB/s stands for it. The other shapes' rows go to `other_shapes`.
std::vector<SeriesPanel> llc_fit_panels(const MachineResults& m, int threads,
                                        std::size_t max_series = kMaxSeriesPerPanel);

// Bandwidth vs context: one panel per dtype at `threads`; one series per (benchmark, shape,
// layout, cache_state), pooling runs, ordered by context (median GB/s per context).
std::vector<SeriesPanel> context_panels(const MachineResults& m, int threads,
                                        std::size_t max_series = kMaxSeriesPerPanel + 1);

// Thread scaling: per dtype, the decode_step configuration (shape, layout, cache_state) at
// the largest context that ran at >= 2 thread counts (ties: more thread counts, then the larger
// working set, then warm); rows ordered by threads, one per thread count.
std::vector<ResultSeries> thread_series(const MachineResults& m);

// Splits panels holding more than `max_series` series into "title (1/2)", "title (2/2)", ...
std::vector<SeriesPanel> split_panels(std::vector<SeriesPanel> panels, std::size_t max_series);

}  // namespace kvb
