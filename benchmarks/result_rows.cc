#include "benchmarks/result_rows.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace kvb {

const std::vector<std::string>& config_key_columns() {
  static const std::vector<std::string> columns = {
      "benchmark", "model", "layout", "dtype", "layers", "q_heads", "kv_heads",
      "head_dim", "context", "window", "batch", "threads", "pin", "cache_state",
      "block_size", "block_order", "seq_lens", "query_tokens", "sliding_pattern"};
  return columns;
}

std::string config_key(const CsvRow& row) {
  std::string key;
  for (const std::string& column : config_key_columns()) {
    const auto it = std::find_if(row.begin(), row.end(),
                                 [&](const auto& cell) { return cell.first == column; });
    if (&column != &config_key_columns().front()) key += '|';
    if (it != row.end()) key += it->second;
  }
  return key;
}

std::string ceiling_group_key(int threads, const std::string& pin) {
  return std::to_string(threads) + "|" + pin;
}

CsvRow thp_columns(const ThpBacking& thp) {
  char share[16] = "";
  if (thp.share >= 0) std::snprintf(share, sizeof share, "%.3f", thp.share);
  return {{"thp", thp_state_name(thp.state)}, {"thp_share", share}};
}

CsvRow config_columns(const DecodeConfig& c, Family family, const VariantParams& v) {
  const ModelShape& s = c.shape;
  const auto positive = [](std::int64_t x) { return x > 0 ? std::to_string(x) : std::string(); };
  const bool batched = family == Family::kBatchedAttention || family == Family::kCacheClone;
  return {
      {"benchmark", family_name(family)},
      {"model", s.model},
      {"layout", layout_name(c.layout)},
      {"dtype", dtype_name(c.dtype)},
      {"layers", std::to_string(s.layers)},
      {"q_heads", std::to_string(s.q_heads)},
      {"kv_heads", std::to_string(s.kv_heads)},
      {"head_dim", std::to_string(s.head_dim)},
      {"context", std::to_string(s.context)},
      {"window", s.window > 0 ? std::to_string(s.window) : ""},
      {"batch", batched ? std::to_string(v.batch) : "1"},
      {"threads", runs_single_threaded(family) ? "1" : std::to_string(c.threads)},
      {"pin", c.pin},
      {"cache_state", cache_state_name(c.cache_state)},
      {"block_size", family == Family::kPagedAttention ? positive(v.block_size) : ""},
      {"block_order", family == Family::kPagedAttention ? v.block_order : ""},
      {"seq_lens", family == Family::kBatchedAttention ? v.seq_lens : ""},
      {"query_tokens", family == Family::kChunkedAttention ? positive(v.query_tokens) : ""},
      {"sliding_pattern", c.sliding_pattern()},
  };
}

std::string ws_level_for(std::int64_t ws, std::int64_t l1, std::int64_t l2, std::int64_t llc) {
  if (l1 > 0 && ws <= l1) return "L1";
  if (l2 > 0 && ws <= l2) return "L2";
  if (llc > 0 && ws <= llc) return "L3";
  return "DRAM";
}

namespace {

// A statistic that does not exist (cv of an all-zero column) is "not applicable": empty.
std::string number_or_empty(double v) { return std::isfinite(v) ? csv_number(v) : ""; }

}  // namespace

CsvRow measurement_columns(const Measurement& m, const Cost& cost, std::int64_t working_set,
                           std::int64_t llc_bytes, std::optional<double> ceiling_gbps) {
  const std::int64_t bytes = cost.bytes_read + cost.bytes_written;
  CsvRow row = {
      {"aggregate", m.aggregate},
      {"repetition", std::to_string(m.repetition)},
      {"iterations", std::to_string(m.iterations)},
      {"ns_per_step", number_or_empty(m.ns_per_step)},
      {"tokens_per_s", m.tokens_per_s ? number_or_empty(*m.tokens_per_s) : ""},
      {"bytes_read", std::to_string(cost.bytes_read)},
      {"bytes_written", std::to_string(cost.bytes_written)},
      {"flops", std::to_string(cost.flops)},
      {"gbps", number_or_empty(m.gbps)},
      {"gflops", number_or_empty(m.gflops)},
      {"ai_flop_per_byte", bytes > 0 ? csv_number(static_cast<double>(cost.flops) /
                                                  static_cast<double>(bytes))
                                     : ""},
      {"working_set_bytes", std::to_string(working_set)},
      {"ws_over_llc", llc_bytes > 0 ? csv_number(static_cast<double>(working_set) /
                                                 static_cast<double>(llc_bytes))
                                    : ""},
  };
  if (ceiling_gbps && *ceiling_gbps > 0) {
    row.emplace_back("ceiling_gbps", csv_number(*ceiling_gbps));
    row.emplace_back("pct_of_ceiling", m.aggregate == "cv"
                                           ? number_or_empty(m.gbps)
                                           : number_or_empty(100.0 * m.gbps / *ceiling_gbps));
  }
  return row;
}

}  // namespace kvb
