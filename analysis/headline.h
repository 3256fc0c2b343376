// The report's headline per CPU: how close decode gets to the hardware, per dtype, in the
// two regimes that matter (KV cache in DRAM, KV cache in the LLC), and against the peer.
#pragma once
#include <optional>
#include <string>
#include <vector>

#include "analysis/machine_results.h"
#include "analysis/peer_comparison.h"

namespace kvb {

struct HeadlinePoint {
  const ResultRow* row = nullptr;      // nullptr: no such row was measured
  std::optional<double> gbps;
  std::optional<double> pct_of_ceiling;  // vs the read ceiling at the row's level and thread count
};

struct HeadlineRow {
  std::string dtype;
  HeadlinePoint dram_one_thread;       // DRAM-resident decode_step at 1 thread
  HeadlinePoint dram_max_threads;      // ... at the machine's max decode thread count
  HeadlinePoint llc_max_threads;       // LLC-resident (ws_level L3) at the max thread count
  std::vector<PeerComparison> peers;  // best_peer_matches of this dtype
};

struct Headline {
  int max_threads = 0;
  std::vector<HeadlineRow> rows;       // per dtype, fp32 first
};

// DRAM/LLC points are the valid decode_step row with the largest working set at that level
// (ties: warm first, then a row with its own ceiling bracket, then the latest run_id, so a rerun
// replaces the row it repeats and the order of the inputs does not matter) — the most
// memory-bound case measured — among shapes with at most
// kMaxStreamingGroupSize query heads per KV head where the dtype ran any (a cell without one
// stays empty; only a dtype run with larger groups alone shows them). Peers: best_peer_matches.
Headline build_headline(const MachineResults& m);

}  // namespace kvb
