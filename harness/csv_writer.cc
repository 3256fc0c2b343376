#include "harness/csv_writer.h"

#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cstring>
#include <fstream>
#include <unordered_map>

#include "harness/error.h"

namespace kvb {
namespace {

std::string join_header(const std::vector<std::string>& cols) {
  std::string s;
  for (std::size_t i = 0; i < cols.size(); ++i) s += (i ? "," : "") + cols[i];
  return s;
}

bool bad_char(char c) { return c == ',' || c == '"' || c == '\n' || c == '\r'; }

}  // namespace

const std::vector<std::string>& csv_base_columns() {
  static const std::vector<std::string> cols = {
      // identity and machine
      "schema_version", "run_id", "timestamp", "host", "cpu_vendor", "cpu_model", "cpu_signature", "isa",
      "pus_total", "numa_nodes",
      "l1d_bytes", "l2_bytes", "l3_bytes", "llc_bytes", "llc_source", "llc_hwloc_bytes", "mem_bytes", "os_kernel", "hypervisor", "thp_mode",
      "governor", "compiler", "cxx_flags", "git_commit", "kvbench_version",
      // configuration
      "benchmark", "model", "layout", "dtype", "layers", "q_heads", "kv_heads", "head_dim", "context", "window",
      "batch", "threads", "pin", "pu_list", "placement", "thp", "thp_share", "cache_state", "ws_level",
      "block_size", "block_order", "seq_lens", "query_tokens", "sliding_pattern",
      // measurement
      "aggregate", "repetition", "iterations", "ns_per_step", "tokens_per_s", "bytes_read", "bytes_written",
      "flops", "gbps", "gflops", "ai_flop_per_byte", "working_set_bytes", "ws_over_llc", "ceiling_gbps",
      "pct_of_ceiling", "ceiling_before_gbps", "ceiling_after_gbps", "core_before_gflops", "core_after_gflops",
      "core_slowest_pct", "core_slowest_pu", "barrier_before_ns", "barrier_after_ns", "barrier_wait_pct",
      "barrier_slowest_pu", "barrier_slowest_pct", "read_plain_gbps", "read_window_gbps", "read_two_streams_gbps",
      "read_four_streams_gbps", "valid", "max_rel_err"};
  return cols;
}

std::vector<std::string> csv_columns(const std::vector<std::string>& counter_events) {
  std::vector<std::string> cols = csv_base_columns();
  for (const std::string& e : counter_events) {
    cols.push_back("c:" + e);
    cols.push_back("c:" + e + ":status");
  }
  return cols;
}

CsvWriter::CsvWriter(const std::string& path, std::vector<std::string> columns, Mode mode, bool fsync_rows)
    : fsync_(fsync_rows), columns_(std::move(columns)) {
  for (const std::string& c : columns_)
    for (char ch : c)
      if (bad_char(ch)) throw HarnessError("CSV column name '" + c + "' contains a comma, quote or newline");
  const std::string header = join_header(columns_);
  if (path == "-") {
    f_ = stdout;
    std::fprintf(f_, "%s\n", header.c_str());
    std::fflush(f_);
    return;
  }
  owns_ = true;
  if (mode == Mode::kRefuse) {
    f_ = std::fopen(path.c_str(), "wx");  // O_EXCL: never clobber earlier results
    if (!f_)
      throw HarnessError(errno == EEXIST ? "output file " + path + " already exists (refusing to overwrite it; "
                                                                      "choose another name or append)"
                                         : "cannot create output file " + path + ": " + std::strerror(errno));
  } else {
    std::ifstream existing(path);
    std::string first;
    const bool has_header = existing && std::getline(existing, first) && !first.empty();
    if (has_header && first != header)
      throw HarnessError("cannot append to " + path + ": its header differs from this run's columns (" +
                         std::to_string(std::count(first.begin(), first.end(), ',') + 1) + " vs " +
                         std::to_string(columns_.size()) + " columns); write to a new file");
    f_ = std::fopen(path.c_str(), "a");
    if (!f_) throw HarnessError("cannot open output file " + path + " for appending: " + std::strerror(errno));
    if (has_header) return;
  }
  std::fprintf(f_, "%s\n", header.c_str());
  std::fflush(f_);
  if (fsync_) fsync(fileno(f_));
}

CsvWriter::~CsvWriter() {
  if (f_ && owns_) std::fclose(f_);
}

void CsvWriter::write(const CsvRow& row) {
  std::unordered_map<std::string, std::size_t> index;
  for (std::size_t i = 0; i < columns_.size(); ++i) index.emplace(columns_[i], i);
  std::vector<const std::string*> values(columns_.size(), nullptr);
  for (const auto& [col, val] : row) {
    auto it = index.find(col);
    if (it == index.end()) throw HarnessError("CSV row names column '" + col + "' that the header lacks");
    for (char ch : val)
      if (bad_char(ch))
        throw HarnessError("CSV value '" + val + "' for column " + col + " contains a comma, quote or newline");
    values[it->second] = &val;
  }
  std::string line;
  for (std::size_t i = 0; i < values.size(); ++i) {
    if (i) line += ',';
    if (values[i]) line += *values[i];
  }
  line += '\n';
  if (std::fwrite(line.data(), 1, line.size(), f_) != line.size() || std::fflush(f_) != 0)
    throw HarnessError(std::string("cannot write CSV row: ") + std::strerror(errno));
  if (fsync_ && owns_) fsync(fileno(f_));
  ++rows_;
}

std::string csv_number(double v) {
  char buf[64];
  auto [p, ec] = std::to_chars(buf, buf + sizeof buf, v);
  return ec == std::errc() ? std::string(buf, p) : std::string();
}

std::string csv_number(long long v) { return std::to_string(v); }

}  // namespace kvb
