// The barrier-wait counters of a timed decode or attention loop (ParallelDecode::BarrierWait
// differences around it): the share of the workers' time spent waiting (`barrier_wait_pct`),
// and per worker the share of those waits that were for it, the last to arrive, so a row can
// name the worker the others waited for most. The per-worker counters ride in Google
// Benchmark's counters, so its aggregates (median, mean) reach them as they reach every other
// counter; they are kept off the console.
#pragma once
#include <benchmark/benchmark.h>

#include <optional>
#include <string>

#include "harness/parallel_decode.h"

namespace kvb {

// Sets `barrier_wait_pct` and, when any worker waited, one share per worker from the waits
// after a loop minus those before it; sets nothing when no worker was timed in between (one
// worker, no barriers).
void set_barrier_wait_counters(const ParallelDecode::BarrierWait& before,
                               const ParallelDecode::BarrierWait& after, benchmark::UserCounters* counters);

// A per-worker share counter: to be kept off the console.
bool is_worker_wait_counter(const std::string& name);

struct SlowestWorker {
  int worker = 0;       // the pool's index
  double held_pct = 0;  // the share of the workers' barrier waits that were waits for it
};
// The worker with the largest share (the lowest index on a tie), if the counters hold any.
std::optional<SlowestWorker> slowest_worker(const benchmark::UserCounters& counters);

}  // namespace kvb
