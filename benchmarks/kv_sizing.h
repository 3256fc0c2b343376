// KV-cache sizing without running anything (`kvbench size`).
#pragma once
#include <cstdint>
#include <string>

#include "benchmarks/machine_facts.h"
#include "benchmarks/sweep.h"

namespace kvb {

struct SizingRequest {
  ModelShape shape;        // context = tokens per sequence
  DType dtype = DType::kF32;
  std::int64_t block_size = 0;  // paged cache block (positions); 0 = not paged
  std::int64_t users = 1;       // concurrent sequences
};

struct SizingResult {
  std::int64_t positions = 0;        // held per sequence: min(context, window), block-rounded
                                     // (hybrid models: by the sliding layers; global: context)
  std::int64_t bytes_per_token = 0;  // all layers, K and V, int8 scales included
  std::int64_t bytes_per_layer = 0;  // one layer at `positions` (hybrid: the mean layer)
  std::int64_t total_bytes = 0;      // one sequence
  std::int64_t mha_total_bytes = 0;  // same with kv_heads = q_heads
  double gqa_saving_pct = 0;         // 100 * (1 - total / mha_total)
  std::int64_t users_total_bytes = 0;
  bool fits_llc = false;             // one sequence
  bool fits_ram = false;             // all users, against MemAvailable
};

SizingResult size_kv_cache(const SizingRequest& request, const MachineFacts& machine);

}  // namespace kvb
