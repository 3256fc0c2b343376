// Building CSV rows (results/README.md schema) from configurations and measurements, and the
// configuration key that --resume and `kvbench compare` match rows on.
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "benchmarks/run_options.h"
#include "benchmarks/sweep.h"
#include "benchmarks/variant_runner.h"
#include "harness/csv_writer.h"
#include "harness/memory.h"
#include "kernels/cost_model.h"

namespace kvb {

// benchmark, model, layout, dtype, layers, q_heads, kv_heads, head_dim, context, window, batch,
// threads, pin, cache_state, block_size, block_order, seq_lens, query_tokens, sliding_pattern.
const std::vector<std::string>& config_key_columns();
// Values of the key columns joined with '|' (a missing column counts as empty).
std::string config_key(const CsvRow& row);
// Key of the ceiling rows of one (threads, pin): "threads|pin".
std::string ceiling_group_key(int threads, const std::string& pin);

// Configuration columns of a decode-type row (no pu_list/thp/ws_level: measured values).
// Variant families add their axes (block_size, block_order, batch, seq_lens, query_tokens);
// single-threaded families say threads=1.
CsvRow config_columns(const DecodeConfig& config, Family family,
                      const VariantParams& params = {});

// "L1", "L2", "L3" or "DRAM": the smallest level whose capacity over the PUs used holds
// `working_set_bytes` (a level of size 0 is absent).
std::string ws_level_for(std::int64_t working_set_bytes, std::int64_t l1_bytes,
                         std::int64_t l2_bytes, std::int64_t llc_bytes);

// thp and thp_share of a buffer the row measured; thp_share is empty when unknown.
CsvRow thp_columns(const ThpBacking& thp);

// One measurement (a repetition or an aggregate) of a decode-type benchmark.
struct Measurement {
  std::string aggregate = "none";    // none, mean, median, stddev, cv
  std::int64_t repetition = 0;       // -1 on aggregates
  std::int64_t iterations = 0;
  double ns_per_step = 0;            // the statistic itself on stddev/cv rows
  double gbps = 0;                   // likewise: statistic of per-repetition GB/s
  double gflops = 0;
  std::optional<double> tokens_per_s;
};

// Measurement columns: bytes/flops from `cost`, derived intensity, ceiling and percentage
// (on cv rows the percentage column carries the cv of GB/s, which is the cv of the percentage).
CsvRow measurement_columns(const Measurement& m, const Cost& cost, std::int64_t working_set_bytes,
                           std::int64_t llc_bytes, std::optional<double> ceiling_gbps);

}  // namespace kvb
