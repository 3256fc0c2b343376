#include "tests/analysis/summary_rows.h"

namespace kvb::testing {

void set(ResultRow& r, Col c, const std::string& text) {
  const auto i = static_cast<std::size_t>(c);
  r.text[i] = text;
  r.number[i] = column_kind(c) == ColKind::kText || text.empty() ? std::nullopt : std::optional<double>(std::stod(text));
}

ResultRow summary_row(std::initializer_list<std::pair<Col, std::string>> fields) {
  ResultRow r;
  r.file = "test.csv";
  for (const auto& [col, text] : fields) set(r, col, text);
  return r;
}

ResultRow decode_row(const std::string& benchmark, const std::string& dtype, int threads, int context,
                     double working_set_bytes, double gbps, const std::string& ws_level,
                     const std::string& cache_state, int layers, int kv_heads, const std::string& run_id) {
  const double ns = working_set_bytes / gbps;
  return summary_row({{Col::run_id, run_id},
                      {Col::benchmark, benchmark},
                      {Col::model, "custom"},
                      {Col::layout, "head_major"},
                      {Col::dtype, dtype},
                      {Col::layers, std::to_string(layers)},
                      {Col::q_heads, "16"},
                      {Col::kv_heads, std::to_string(kv_heads)},
                      {Col::head_dim, "128"},
                      {Col::context, std::to_string(context)},
                      {Col::batch, "1"},
                      {Col::threads, std::to_string(threads)},
                      {Col::cache_state, cache_state},
                      {Col::ws_level, ws_level},
                      {Col::aggregate, "median"},
                      {Col::ns_per_step, std::to_string(ns)},
                      {Col::tokens_per_s, std::to_string(1e9 / ns)},
                      {Col::bytes_read, std::to_string(static_cast<long long>(working_set_bytes))},
                      {Col::bytes_written, "0"},
                      {Col::working_set_bytes, std::to_string(static_cast<long long>(working_set_bytes))},
                      {Col::valid, "1"}});
}

ResultRow barrier_crossing_row(int threads, double ns, const std::string& run_id) {
  return summary_row({{Col::run_id, run_id},
                      {Col::benchmark, "ceiling_barrier"},
                      {Col::threads, std::to_string(threads)},
                      {Col::aggregate, "none"},
                      {Col::ns_per_step, std::to_string(ns)},
                      {Col::bytes_read, "0"},
                      {Col::bytes_written, "0"},
                      {Col::valid, "1"}});
}

}  // namespace kvb::testing
