// Typed, validated view of kvbench result CSVs (schema: results/README.md).
// Columns are found by name; unknown columns (counters, future additions) are ignored; a file
// with an unknown schema_version, a missing column, a malformed row or a non-numeric value in a
// numeric column is rejected with an InputError naming file, line and column.
#pragma once
#include <array>
#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace kvb {

inline constexpr int kSchemaVersion = 1;

// Every column the analysis reads. X(name, kind) with kind Text, Int or Float.
#define KVB_RESULT_COLUMNS(X)                                                            \
  X(schema_version, Int) X(run_id, Text) X(host, Text) X(cpu_vendor, Text)               \
  X(cpu_model, Text) X(cpu_signature, Text) X(isa, Text) X(l1d_bytes, Int) X(l2_bytes, Int) X(l3_bytes, Int) X(llc_bytes, Int) X(llc_source, Text) X(llc_hwloc_bytes, Int) \
  X(compiler, Text) X(kvbench_version, Text) X(benchmark, Text) X(model, Text)           \
  X(layout, Text) X(dtype, Text) X(layers, Int) X(q_heads, Int) X(kv_heads, Int)         \
  X(head_dim, Int) X(context, Int) X(window, Int) X(batch, Int) X(threads, Int)          \
  X(pin, Text) X(placement, Text) X(thp_mode, Text) X(thp_share, Float)                  \
  X(cache_state, Text) X(ws_level, Text)                                                 \
  X(aggregate, Text) X(repetition, Int) X(ns_per_step, Float) X(tokens_per_s, Float)     \
  X(bytes_read, Int) X(bytes_written, Int) X(flops, Int) X(gbps, Float) X(gflops, Float) \
  X(ai_flop_per_byte, Float) X(working_set_bytes, Int) X(ceiling_gbps, Float)            \
  X(pct_of_ceiling, Float) X(valid, Int) X(block_size, Int) X(block_order, Text)          \
  X(seq_lens, Text) X(query_tokens, Int) X(sliding_pattern, Text)                       \
  X(ceiling_before_gbps, Float) X(ceiling_after_gbps, Float)                             \
  X(core_before_gflops, Float) X(core_after_gflops, Float) X(barrier_wait_pct, Float)   \
  X(barrier_slowest_pu, Int) X(barrier_slowest_pct, Float)                               \
  X(barrier_before_ns, Float) X(barrier_after_ns, Float)                                 \
  X(core_slowest_pct, Float) X(core_slowest_pu, Int)                                   \
  X(read_plain_gbps, Float) X(read_window_gbps, Float) X(read_two_streams_gbps, Float)  \
  X(read_four_streams_gbps, Float) X(max_rel_err, Float)

enum class Col : std::size_t {
#define KVB_ENUM_ENTRY(name, kind) name,
  KVB_RESULT_COLUMNS(KVB_ENUM_ENTRY)
#undef KVB_ENUM_ENTRY
};

#define KVB_COUNT_ENTRY(name, kind) +1
inline constexpr std::size_t kColumnCount = 0 KVB_RESULT_COLUMNS(KVB_COUNT_ENTRY);
#undef KVB_COUNT_ENTRY

enum class ColKind { kText, kInt, kFloat };

std::string_view column_name(Col c);
ColKind column_kind(Col c);

// The configuration columns `kvbench compare` matches rows on, in schema order.
inline constexpr Col kConfigColumns[] = {
    Col::benchmark, Col::model,   Col::layout, Col::dtype,   Col::layers,    Col::q_heads,
    Col::kv_heads,  Col::head_dim, Col::context, Col::window, Col::batch,    Col::threads,
    Col::pin,       Col::placement, Col::cache_state, Col::ws_level, Col::block_size,
    Col::block_order, Col::seq_lens, Col::query_tokens, Col::sliding_pattern};

// Columns added to schema version 1 later (the variant axes, the ceiling and core brackets, the
// CPU signature, the LLC's source, the barrier wait and crossing brackets, the core bracket's
// slowest worker, the huge-page share, the read ceiling's loops; and thp_mode, read since
// then): a file without them reads them as empty, so older version-1 files still load.
inline constexpr Col kOptionalColumns[] = {Col::block_size,          Col::block_order,
                                           Col::seq_lens,            Col::query_tokens,
                                           Col::sliding_pattern,     Col::ceiling_before_gbps,
                                           Col::ceiling_after_gbps,  Col::core_before_gflops,
                                           Col::core_after_gflops,   Col::cpu_signature,
                                           Col::llc_source,          Col::llc_hwloc_bytes,
                                           Col::barrier_wait_pct,    Col::barrier_slowest_pu,
                                           Col::barrier_slowest_pct, Col::barrier_before_ns,
                                           Col::barrier_after_ns,    Col::core_slowest_pct,
                                           Col::core_slowest_pu,     Col::thp_mode,
                                           Col::thp_share,           Col::read_plain_gbps,
                                           Col::read_window_gbps,    Col::read_two_streams_gbps,
                                           Col::read_four_streams_gbps};

// One CSV row. Numeric fields are parsed at load time; an empty field is "not measured".
struct ResultRow {
  std::string file;
  unsigned line = 0;
  std::array<std::string, kColumnCount> text;
  std::array<std::optional<double>, kColumnCount> number;

  const std::string& str(Col c) const { return text[static_cast<std::size_t>(c)]; }
  std::optional<double> num(Col c) const { return number[static_cast<std::size_t>(c)]; }
  double num_or(Col c, double fallback) const { return num(c).value_or(fallback); }

  bool is_ceiling() const { return str(Col::benchmark).rfind("ceiling_", 0) == 0; }
  // The FP32 FMA ceiling, at a run's start (ceiling_fma) or, since 2026-12-03d, again at its end
  // (ceiling_fma_end): the faster of the two is the run's roof.
  bool is_fma_ceiling() const {
    const std::string& b = str(Col::benchmark);
    return b == "ceiling_fma" || b == "ceiling_fma_end";
  }
  bool is_peer() const { return str(Col::benchmark).rfind("peer_", 0) == 0; }
  bool is_median() const { return str(Col::aggregate) == "median"; }
  bool is_repetition() const { return str(Col::aggregate) == "none"; }
  // A kernel row failed its double-precision check: its timing is reported but not trusted.
  bool failed_validation() const { return num(Col::valid).value_or(1) == 0; }
};

// Loads and validates one CSV. Throws InputError on any problem.
std::vector<ResultRow> load_results(const std::string& path);
// Loads several CSVs into one table (each row remembers its file and line).
std::vector<ResultRow> load_results(const std::vector<std::string>& paths);

// The row's KV shape as reports print it, "28L 16q/8kv d128"; empty for rows without one (ceilings).
std::string shape_label(const ResultRow& row);

// "benchmark=decode_step model=qwen3-0.6b ..." style key over the given columns.
std::string join_columns(const ResultRow& row, const std::vector<Col>& columns,
                         std::string_view separator = " ");

}  // namespace kvb
