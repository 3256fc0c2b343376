// Where an LLC-sized decode step's time goes, from the row's own run: its bytes at the run's read
// ceiling, one crossing of the run's ceiling_barrier per layer, the workers' waits for the last of
// them to arrive (barrier_wait_pct), and the rest, which is the kernel's and the schedule's own
// cost beyond streaming (each call's fixed cost, merges, the append, slow cores). The targets say
// how far a row is from its ceiling; this says which of these holds it there.
#pragma once
#include <optional>
#include <vector>

#include "analysis/machine_results.h"

namespace kvb {

struct StepBreakdown {
  const ResultRow* row = nullptr;
  double step_ns = 0;                // ns_per_step
  double streaming_ns = 0;           // its bytes at its ceiling (ns_per_step x % of ceiling / 100)
  double crossings_ns = 0;           // layers x the run's ceiling_barrier at the row's threads and pin
  std::optional<double> waiting_ns;  // ns_per_step x barrier_wait_pct / 100: a worker's mean wait;
                                     // 0 at one thread, nullopt where the column is empty
  double rest_ns = 0;                // step - streaming - crossings - waiting (waiting 0 where unknown)
  double layers = 0;
};

// The decode_step and attention rows the LLC-resident target judges (ws_level the LLC, at most
// kMaxStreamingGroupSize query heads per KV head) whose run measured both their read ceiling and
// ceiling_barrier, in the machine's row order.
std::vector<StepBreakdown> break_down_llc_steps(const MachineResults& m);

}  // namespace kvb
