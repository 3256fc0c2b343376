// kvbench beside peer implementations (`peer_*` rows) of the same shape. One matching rule, used
// by the report's headline, its "kvbench vs peers" section and its efficiency targets.
#pragma once
#include <optional>
#include <vector>

#include "analysis/machine_results.h"

namespace kvb {

struct PeerComparison {
  const ResultRow* peer = nullptr;
  const ResultRow* ours = nullptr;         // nullptr: kvbench ran no decode kernel of this shape
  std::optional<double> kvbench_gbps, peer_gbps;
  std::optional<double> speed;             // peer time / kvbench time (> 1: kvbench faster)
  std::optional<double> gbps_ratio;        // kvbench GB/s / peer GB/s
  // `speed`, unless the peer's output failed its accuracy check: a ratio to a wrong answer
  // compares nothing. (The efficiency targets keep the ratio and fail the line instead.)
  std::optional<double> valid_speed() const;
};

// For every peer row of `m`, one entry per kvbench `decode_step` or `attention` row of the same
// model, dtype, layers, q/kv heads, head_dim, context, window, batch, threads and cache_state
// (all runs), or a single entry with `ours` null when there is none. Peer rows in input order.
std::vector<PeerComparison> compare_with_peers(const MachineResults& m);

// One entry per peer row, from compare_with_peers' entries for it: `attention` before
// `decode_step` (peers time attention alone; decode_step also appends a token per layer), then
// the latest run (largest run_id), then the first in input order.
std::vector<PeerComparison> best_peer_matches(const MachineResults& m);

}  // namespace kvb
