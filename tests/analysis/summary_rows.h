// Hand-built summary rows for tests of the report's selection logic (no CSV round trip).
#pragma once
#include <initializer_list>
#include <string>
#include <utility>

#include "analysis/machine_results.h"

namespace kvb::testing {

// Sets one column of `r` from its text (numeric columns parsed; empty: not measured).
void set(ResultRow& r, Col c, const std::string& text);

// A summary row with the given columns set; numeric columns are parsed from their text.
ResultRow summary_row(std::initializer_list<std::pair<Col, std::string>> fields);

// A valid decode-type row: 28L 16q/8kv d128 unless overridden, with gbps = `gbps` via the cost
// model (bytes_read = working set, ns_per_step chosen to match).
ResultRow decode_row(const std::string& benchmark, const std::string& dtype, int threads, int context,
                     double working_set_bytes, double gbps, const std::string& ws_level,
                     const std::string& cache_state = "warm", int layers = 28, int kv_heads = 8,
                     const std::string& run_id = "run-a");

// A ceiling_barrier row of `run_id`: one crossing of the per-layer barrier at `threads`, `ns` long.
ResultRow barrier_crossing_row(int threads, double ns, const std::string& run_id = "run-a");

}  // namespace kvb::testing
