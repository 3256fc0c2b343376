#include "tests/analysis/synthetic_results.h"

#include <algorithm>
#include <cmath>
#include <fstream>
#include <random>
#include <sstream>

namespace kvb::testing {
namespace {

std::string num(double v) {
  std::ostringstream s;
  s.precision(12);
  s << v;
  return s.str();
}

std::string integer(double v) { return std::to_string(static_cast<long long>(std::llround(v))); }

// Qwen3-0.6B attention step.
constexpr int kLayers = 28, kQHeads = 16, kKvHeads = 8, kHeadDim = 128;

double element_bytes(const std::string& dtype) {
  if (dtype == "fp32") return 4;
  if (dtype == "int8") return 1;
  return 2;
}

struct Step {
  double bytes_read, bytes_written, flops, working_set;
};

Step decode_step(const std::string& dtype, int context) {
  const double row = kHeadDim * element_bytes(dtype) + (dtype == "int8" ? 4 : 0);
  const double kv = 2.0 * kLayers * kKvHeads * context * row;
  const double q_and_out = 2.0 * kLayers * kQHeads * kHeadDim * 4;
  return {kv + q_and_out / 2, q_and_out / 2, 4.0 * kLayers * kQHeads * kHeadDim * context, kv};
}

struct Level {
  const char* name;
  double gbps;
};

Level level_of(const SyntheticMachine& m, double ws) {
  if (ws <= m.l1d_bytes) return {"L1", m.gbps_l1};
  if (ws <= m.l2_bytes) return {"L2", m.gbps_l2};
  if (ws <= m.llc_bytes) return {"L3", m.gbps_l3};
  return {"DRAM", m.gbps_dram};
}

CsvFields measurement(CsvFields f, double ns, double bytes_read, double bytes_written, double flops,
                      bool decode) {
  f["ns_per_step"] = num(ns);
  if (decode) f["tokens_per_s"] = num(1e9 / ns);
  f["bytes_read"] = integer(bytes_read);
  f["bytes_written"] = integer(bytes_written);
  f["flops"] = integer(flops);
  f["gbps"] = num((bytes_read + bytes_written) / ns);
  f["gflops"] = num(flops / ns);
  if (bytes_read + bytes_written > 0) f["ai_flop_per_byte"] = num(flops / (bytes_read + bytes_written));
  return f;
}

// `repetitions` noisy repetition rows and their median row.
void add_repetitions(std::vector<CsvFields>& out, const CsvFields& config, double ns, const Step& s,
                     bool decode, int repetitions, std::mt19937& rng, double noise) {
  std::normal_distribution<double> jitter(1.0, noise);
  std::vector<double> times;
  for (int r = 0; r < repetitions; ++r) {
    const double t = ns * std::max(0.5, jitter(rng));
    times.push_back(t);
    CsvFields f = measurement(config, t, s.bytes_read, s.bytes_written, s.flops, decode);
    f["aggregate"] = "none";
    f["repetition"] = std::to_string(r);
    f["iterations"] = "100";
    out.push_back(f);
  }
  std::sort(times.begin(), times.end());
  const double med = times.size() % 2 ? times[times.size() / 2]
                                      : 0.5 * (times[times.size() / 2 - 1] + times[times.size() / 2]);
  CsvFields f = measurement(config, med, s.bytes_read, s.bytes_written, s.flops, decode);
  f["aggregate"] = "median";
  f["repetition"] = "-1";
  f["iterations"] = "100";
  out.push_back(f);
}

}  // namespace

std::vector<std::string> schema_header() {
  return {"schema_version", "run_id", "timestamp", "host", "cpu_vendor", "cpu_model", "cpu_signature", "isa",
          "pus_total",
          "numa_nodes", "l1d_bytes", "l2_bytes", "l3_bytes", "llc_bytes", "mem_bytes", "os_kernel", "hypervisor",
          "thp_mode", "governor", "compiler", "cxx_flags", "git_commit", "kvbench_version", "benchmark", "model",
          "layout", "dtype", "layers", "q_heads", "kv_heads", "head_dim", "context", "window", "batch", "threads",
          "pin", "pu_list", "placement", "thp", "cache_state", "ws_level", "aggregate", "repetition", "iterations",
          "ns_per_step", "tokens_per_s", "bytes_read", "bytes_written", "flops", "gbps", "gflops",
          "ai_flop_per_byte", "working_set_bytes", "ws_over_llc", "ceiling_gbps", "pct_of_ceiling",
          "ceiling_before_gbps", "ceiling_after_gbps", "valid",
          "max_rel_err", "c:PAPI_TOT_CYC", "c:PAPI_TOT_CYC:status"};
}

std::string to_csv(const std::vector<CsvFields>& rows, const std::vector<std::string>& header) {
  std::string out;
  for (std::size_t i = 0; i < header.size(); ++i) out += (i ? "," : "") + header[i];
  out += "\n";
  for (const auto& r : rows) {
    for (std::size_t i = 0; i < header.size(); ++i) {
      auto it = r.find(header[i]);
      out += (i ? "," : "") + (it == r.end() ? std::string() : it->second);
    }
    out += "\n";
  }
  return out;
}

void write_text(const std::filesystem::path& p, const std::string& text) {
  std::ofstream out(p, std::ios::binary | std::ios::trunc);
  out << text;
}

CsvFields machine_fields(const SyntheticMachine& m) {
  return {{"schema_version", "1"}, {"run_id", m.run_id}, {"timestamp", "2026-11-21T23:00:00Z"},
          {"host", m.host}, {"cpu_vendor", "AuthenticAMD"}, {"cpu_model", m.cpu_model},
          {"cpu_signature", m.cpu_signature}, {"isa", "AVX3_ZEN4"},
          {"pus_total", "2"}, {"numa_nodes", "1"}, {"l1d_bytes", integer(m.l1d_bytes)},
          {"l2_bytes", integer(m.l2_bytes)}, {"l3_bytes", integer(m.llc_bytes)}, {"llc_bytes", integer(m.llc_bytes)},
          {"mem_bytes", "25769803776"}, {"os_kernel", "6.1.0"}, {"hypervisor", "KVM"}, {"thp_mode", "madvise"},
          {"governor", "unknown"}, {"compiler", "GNU 12.2.0"}, {"cxx_flags", "-O3"}, {"git_commit", "0123456789ab"},
          {"kvbench_version", "0.1.0"}, {"pin", "compact"}, {"pu_list", "0"}, {"placement", "first_touch"},
          {"thp", "no"}, {"c:PAPI_TOT_CYC:status", "unsupported"}};
}

namespace {

// Configuration columns of a valid, warm decode_step row of the Qwen3-0.6B shape (no timings).
CsvFields decode_step_fields(const SyntheticMachine& m, const std::string& dtype, int context, int threads,
                             const Step& s) {
  CsvFields c = machine_fields(m);
  c["benchmark"] = "decode_step";
  c["model"] = "qwen3-0.6b";
  c["layout"] = "head_major";
  c["dtype"] = dtype;
  c["layers"] = std::to_string(kLayers);
  c["q_heads"] = std::to_string(kQHeads);
  c["kv_heads"] = std::to_string(kKvHeads);
  c["head_dim"] = std::to_string(kHeadDim);
  c["context"] = std::to_string(context);
  c["batch"] = "1";
  c["threads"] = std::to_string(threads);
  c["cache_state"] = "warm";
  c["ws_level"] = level_of(m, s.working_set).name;
  c["working_set_bytes"] = integer(s.working_set);
  c["valid"] = "1";
  return c;
}

}  // namespace

std::vector<CsvFields> synthetic_run(const SyntheticMachine& m, int repetitions) {
  std::mt19937 rng(m.seed);
  std::vector<CsvFields> out;
  for (int threads : {1, 2}) {
    const double scale = threads == 1 ? 1.0 : m.thread_scaling;
    // Read ceilings: buffers 16 KiB .. 512 MiB.
    for (double ws = 16 * 1024.0; ws <= 512 * 1024 * 1024.0; ws *= 4) {
      CsvFields c = machine_fields(m);
      const Level level = level_of(m, ws);
      c["benchmark"] = "ceiling_read";
      c["threads"] = std::to_string(threads);
      c["ws_level"] = level.name;
      c["working_set_bytes"] = integer(ws);
      c["valid"] = "1";
      add_repetitions(out, c, ws / (level.gbps * scale), {ws, 0, 0, ws}, false, repetitions, rng, m.noise);
    }
    CsvFields fma = machine_fields(m);
    fma["benchmark"] = "ceiling_fma";
    fma["threads"] = std::to_string(threads);
    fma["ws_level"] = "L1";
    fma["valid"] = "1";
    const double flops = 1e6;
    add_repetitions(out, fma, flops / (m.fma_gflops * threads), {0, 0, flops, 0}, false, repetitions, rng, m.noise);

    for (const std::string dtype : {"fp32", "bf16", "int8"}) {
      for (int context = 2; context <= 4096; context *= 2) {
        const Step s = decode_step(dtype, context);
        const Level level = level_of(m, s.working_set);
        CsvFields c = decode_step_fields(m, dtype, context, threads, s);
        c["max_rel_err"] = "1e-6";
        // Memory-bound unless the FMA peak caps it (int8 in L2 has the highest intensity).
        const double ns = std::max((s.bytes_read + s.bytes_written) / (level.gbps * scale),
                                   s.flops / (m.fma_gflops * threads));
        add_repetitions(out, c, ns, s, true, repetitions, rng, m.noise);
        if (dtype == "fp32" && context == 1024 && threads == 2) {
          CsvFields peer = c;
          peer["benchmark"] = "peer_torch";
          add_repetitions(out, peer, ns * 1.7, s, true, repetitions, rng, m.noise);
        }
      }
    }
  }
  return out;
}

std::vector<CsvFields> repetition_rows(const SyntheticMachine& m, const std::vector<double>& ns_per_step,
                                       const std::string& dtype, int context, int threads) {
  const Step s = decode_step(dtype, context);
  std::vector<CsvFields> out;
  for (std::size_t r = 0; r < ns_per_step.size(); ++r) {
    CsvFields c = decode_step_fields(m, dtype, context, threads, s);
    c = measurement(c, ns_per_step[r], s.bytes_read, s.bytes_written, s.flops, true);
    c["aggregate"] = "none";
    c["repetition"] = std::to_string(r);
    c["iterations"] = "10";
    out.push_back(c);
  }
  return out;
}

}  // namespace kvb::testing
