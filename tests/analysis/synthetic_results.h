// Synthetic kvbench result CSVs with known properties (plateaus per cache level, known
// distributions), written in the full schema of results/README.md, for the analysis tests.
#pragma once
#include <cstdint>
#include <filesystem>
#include <map>
#include <string>
#include <vector>

namespace kvb::testing {

// The schema's columns in order, plus one counter pair (readers must ignore unknown columns).
std::vector<std::string> schema_header();

// A CSV row as column -> value; missing columns are written empty.
using CsvFields = std::map<std::string, std::string>;

std::string to_csv(const std::vector<CsvFields>& rows, const std::vector<std::string>& header = schema_header());
void write_text(const std::filesystem::path& p, const std::string& text);

// A synthetic machine: attained read bandwidth is a plateau per cache level.
struct SyntheticMachine {
  std::string cpu_model = "Synthetic CPU A";
  std::string cpu_signature = "family 25 model 1 stepping 1";  // "" writes it empty
  std::string host = "hosta";
  std::string run_id = "hosta-20261121T230000Z";
  double l1d_bytes = 48 * 1024.0;
  double l2_bytes = 1024 * 1024.0;
  double llc_bytes = 32 * 1024 * 1024.0;
  double gbps_l1 = 400, gbps_l2 = 200, gbps_l3 = 100, gbps_dram = 40;  // single thread
  double fma_gflops = 150;                                             // single thread
  double thread_scaling = 1.8;                                         // at 2 threads
  double noise = 0.01;                                                 // relative sd of times
  unsigned seed = 1;
};

CsvFields machine_fields(const SyntheticMachine& m);

// ceiling_read/ceiling_fma and decode_step rows (Qwen3-0.6B shape; fp32, bf16, int8;
// contexts 2..4096; threads 1 and 2; `repetitions` repetition rows plus a median row each).
std::vector<CsvFields> synthetic_run(const SyntheticMachine& m, int repetitions = 3);

// Repetition rows of one decode_step configuration with the given per-repetition times.
std::vector<CsvFields> repetition_rows(const SyntheticMachine& m, const std::vector<double>& ns_per_step,
                                       const std::string& dtype = "fp32", int context = 1024, int threads = 1);

}  // namespace kvb::testing
