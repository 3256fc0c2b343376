// End-to-end tests of the real kvbench binary in a temporary directory.
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

#include "tests/cli/end_to_end.h"

namespace {
namespace fs = std::filesystem;

using kvb_test::from_env_or;
using kvb_test::kKvbench;
using kvb_test::kSourceDir;
using kvb_test::slurp;

#ifdef KERNEL_BENCH_BINARY
const std::string kKernelBench = from_env_or("KVBENCH_TEST_KERNEL_BENCH", KERNEL_BENCH_BINARY);
#endif

struct Result {
  int status = -1;
  std::string out, err;
};

std::vector<std::string> split(const std::string& line, char sep) {
  std::vector<std::string> cells;
  std::string cell;
  std::istringstream in(line);
  while (std::getline(in, cell, sep)) cells.push_back(cell);
  if (!line.empty() && line.back() == sep) cells.emplace_back();
  return cells;
}

// A parsed CSV: header and rows as column -> value.
struct Csv {
  std::vector<std::string> header;
  std::vector<std::map<std::string, std::string>> rows;
};

Csv read_csv(const fs::path& p) {
  Csv csv;
  std::ifstream in(p);
  std::string line;
  if (!std::getline(in, line)) return csv;
  csv.header = split(line, ',');
  while (std::getline(in, line)) {
    const std::vector<std::string> cells = split(line, ',');
    EXPECT_EQ(cells.size(), csv.header.size()) << line;
    std::map<std::string, std::string> row;
    for (std::size_t i = 0; i < cells.size() && i < csv.header.size(); ++i) row[csv.header[i]] = cells[i];
    csv.rows.push_back(std::move(row));
  }
  return csv;
}

class KvbenchBinary : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() /
           ("kvb_bin_" + std::to_string(::getpid()) + "_" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override {
    if (!HasFailure()) fs::remove_all(dir_);
  }
  std::string command_line(const std::string& args, const std::string& binary = kKvbench) const {
    return "cd '" + dir_.string() + "' && KVBENCH_MODELS_DIR='" + kSourceDir + "/configs/models' '" + binary + "' " +
           args;
  }
  Result run(const std::string& args, const std::string& binary = kKvbench) const {
    Result r;
    const std::string cmd = command_line(args, binary) + " >'" + (dir_ / "stdout").string() + "' 2>'" +
                            (dir_ / "stderr").string() + "'";
    const int raw = std::system(cmd.c_str());
    r.status = WIFEXITED(raw) ? WEXITSTATUS(raw) : -1;
    r.out = slurp(dir_ / "stdout");
    r.err = slurp(dir_ / "stderr");
    return r;
  }
  fs::path dir_;
};

const char* kSmoke = "run --config ci-smoke --benchmarks decode_step,append ";

// A row's FMA burst of 2+ workers names its slowest worker: its share of the fastest's rate and a
// PU of the row's own pu_list; a 1-worker row leaves both empty.
void expect_slowest_worker(const std::map<std::string, std::string>& row) {
  if (row.at("threads") == "1") {
    EXPECT_EQ(row.at("core_slowest_pct"), "");
    EXPECT_EQ(row.at("core_slowest_pu"), "");
    return;
  }
  ASSERT_FALSE(row.at("core_slowest_pct").empty());
  EXPECT_GT(std::stod(row.at("core_slowest_pct")), 0);
  EXPECT_LE(std::stod(row.at("core_slowest_pct")), 100);
  const std::string pus = "+" + row.at("pu_list") + "+";
  EXPECT_NE(pus.find("+" + row.at("core_slowest_pu") + "+"), std::string::npos) << row.at("core_slowest_pu");
}

TEST_F(KvbenchBinary, CiSmokeWritesEveryRequiredColumnAndValidRows) {
  const Result r = run("run --config ci-smoke --out smoke.csv");
  ASSERT_EQ(r.status, 0) << r.out << r.err;
  EXPECT_NE(r.out.find("results: smoke.csv"), std::string::npos) << r.out;
  const Csv csv = read_csv(dir_ / "smoke.csv");
  const std::vector<std::string> required = {
      "schema_version", "run_id", "timestamp", "host", "cpu_vendor", "cpu_model", "isa",
      "pus_total", "numa_nodes", "l1d_bytes", "l2_bytes", "l3_bytes", "llc_bytes", "llc_source",
      "llc_hwloc_bytes", "mem_bytes", "os_kernel", "hypervisor", "thp_mode", "governor", "compiler", "cxx_flags", "git_commit",
      "kvbench_version", "benchmark", "model", "layout", "dtype", "layers", "q_heads",
      "kv_heads", "head_dim", "context", "window", "batch", "threads", "pin", "pu_list",
      "placement", "thp", "thp_share", "cache_state", "ws_level", "aggregate", "repetition", "iterations",
      "ns_per_step", "tokens_per_s", "bytes_read", "bytes_written", "flops", "gbps", "gflops",
      "ai_flop_per_byte", "working_set_bytes", "ws_over_llc", "ceiling_gbps", "pct_of_ceiling",
      "ceiling_before_gbps", "ceiling_after_gbps", "core_before_gflops", "core_after_gflops",
      "barrier_wait_pct", "barrier_slowest_pu", "barrier_slowest_pct", "read_plain_gbps",
      "read_window_gbps", "read_two_streams_gbps", "read_four_streams_gbps", "valid", "max_rel_err",
      "c:sde:::kvbench::KV_BYTES_READ",
      "c:sde:::kvbench::KV_BYTES_READ:status"};
  for (const std::string& column : required) {
    EXPECT_NE(std::find(csv.header.begin(), csv.header.end(), column), csv.header.end())
        << "missing column " << column;
  }
  // 2 contexts x 2 dtypes x 5 families (append brings append_memcpy) x (2 repetitions + mean,
  // median, stddev, cv).
  std::map<std::string, int> per_aggregate;
  int decode_rows = 0, ceiling_rows = 0, barrier_rows = 0;
  std::set<std::string> run_ids;
  for (const auto& row : csv.rows) {
    run_ids.insert(row.at("run_id"));
    EXPECT_EQ(row.at("schema_version"), "1");
    if (row.at("benchmark").rfind("ceiling_", 0) == 0) {
      ++ceiling_rows;
      // The per-layer barrier's crossing comes with every ceiling set: a time, no bandwidth.
      if (row.at("benchmark") == "ceiling_barrier") {
        ++barrier_rows;
        EXPECT_GT(std::stod(row.at("ns_per_step")), 0);
        EXPECT_GT(std::stod(row.at("iterations")), 0);
        EXPECT_EQ(row.at("gbps"), "0");
        EXPECT_EQ(row.at("ceiling_gbps"), "");
        EXPECT_EQ(row.at("ws_level"), "");
        EXPECT_EQ(row.at("threads"), "1");
      }
      // A read ceiling is the fastest of its four loops, and says what each read.
      if (row.at("benchmark") == "ceiling_read") {
        const double plain = std::stod(row.at("read_plain_gbps"));
        const double window = std::stod(row.at("read_window_gbps"));
        const double two_streams = std::stod(row.at("read_two_streams_gbps"));
        const double four_streams = std::stod(row.at("read_four_streams_gbps"));
        EXPECT_GT(plain, 0);
        EXPECT_GT(window, 0);
        EXPECT_GT(two_streams, 0);
        EXPECT_GT(four_streams, 0);
        const double best = std::max({plain, window, two_streams, four_streams});
        EXPECT_NEAR(std::stod(row.at("gbps")), best, 1e-6 * best);
      } else {
        EXPECT_EQ(row.at("read_plain_gbps"), "");
        EXPECT_EQ(row.at("read_window_gbps"), "");
        EXPECT_EQ(row.at("read_two_streams_gbps"), "");
        EXPECT_EQ(row.at("read_four_streams_gbps"), "");
      }
      continue;
    }
    EXPECT_EQ(row.at("read_plain_gbps"), "");
    ++decode_rows;
    ++per_aggregate[row.at("aggregate")];
    // The cache was written before the row: smaps knows it, and the share agrees with thp.
    ASSERT_NE(row.at("thp"), "unknown");
    const double thp_share = std::stod(row.at("thp_share"));
    EXPECT_GE(thp_share, 0.0);
    EXPECT_LE(thp_share, 1.0);
    EXPECT_EQ(thp_share > 0, row.at("thp") == "yes") << row.at("thp_share");
    // Not bracketed (no --ceiling-bracket): the bracket columns exist and stay empty.
    EXPECT_EQ(row.at("ceiling_before_gbps"), "");
    EXPECT_EQ(row.at("ceiling_after_gbps"), "");
    EXPECT_EQ(row.at("core_before_gflops"), "");
    EXPECT_EQ(row.at("core_after_gflops"), "");
    EXPECT_EQ(row.at("barrier_wait_pct"), "");  // one thread: no worker waits for another
    EXPECT_EQ(row.at("barrier_slowest_pu"), "");
    EXPECT_EQ(row.at("barrier_slowest_pct"), "");
    EXPECT_EQ(row.at("valid"), "1") << row.at("benchmark") << " " << row.at("dtype");
    EXPECT_FALSE(row.at("max_rel_err").empty());
    EXPECT_FALSE(row.at("pu_list").empty());
    if (row.at("aggregate") == "none" || row.at("aggregate") == "mean") {
      EXPECT_GT(std::stod(row.at("gbps")), 0);
      EXPECT_GT(std::stod(row.at("ns_per_step")), 0);
      // Write rows are held against the copy ceiling, which ci-smoke (read ceilings only) does
      // not measure: empty, never the read ceiling.
      const std::string& b = row.at("benchmark");
      const bool writes = b == "append" || b == "append_memcpy" || b == "prefill_copy";
      EXPECT_EQ(row.at("ceiling_gbps").empty(), writes) << b;
      EXPECT_EQ(row.at("c:sde:::kvbench::KV_BYTES_READ:status").empty(), false);
    }
    // kvbench's SDE events count what the executor did; they must agree with the cost model.
    EXPECT_EQ(row.at("c:sde:::kvbench::KV_BYTES_READ:status"), "ok");
    EXPECT_EQ(row.at("c:sde:::kvbench::KV_BYTES_READ"), row.at("bytes_read"))
        << row.at("benchmark");
    EXPECT_EQ(row.at("c:sde:::kvbench::KV_BYTES_WRITTEN"), row.at("bytes_written"))
        << row.at("benchmark");
    if (row.at("benchmark") == "decode_step" && row.at("aggregate") == "none") {
      EXPECT_GT(std::stod(row.at("tokens_per_s")), 0);
      const double expected = std::stod(row.at("layers")) * 2 * std::stod(row.at("kv_heads")) *
                              std::stod(row.at("context")) * std::stod(row.at("head_dim")) *
                              (row.at("dtype") == "fp32" ? 4 : 1);
      EXPECT_GE(std::stod(row.at("working_set_bytes")), expected);
    }
  }
  EXPECT_EQ(run_ids.size(), 1u);
  EXPECT_EQ(decode_rows, 2 * 2 * 5 * 6);
  EXPECT_EQ(per_aggregate["none"], 40);
  EXPECT_EQ(per_aggregate["cv"], 20);
  EXPECT_GT(ceiling_rows, 0);
  EXPECT_EQ(barrier_rows, 1);  // one thread count

  // The analysis subcommands read what run wrote (dispatch through the same binary).
  const Result cmp = run("compare smoke.csv smoke.csv");
  EXPECT_EQ(cmp.status, 0) << cmp.out << cmp.err;
  EXPECT_NE(cmp.out.find("matched"), std::string::npos) << cmp.out;
  const Result rep = run("report smoke.csv --out report");
  EXPECT_EQ(rep.status, 0) << rep.out << rep.err;
  EXPECT_TRUE(fs::exists(dir_ / "report" / "report.md"));
}

// append brings its memcpy reference: for every append row an append_memcpy row with the same
// key columns, the same bytes written (the append's bytes, read back from the same source), valid.
TEST_F(KvbenchBinary, AppendComesWithItsMemcpyReference) {
  const Result r = run("run --config ci-smoke --benchmarks append --ceilings none --out a.csv");
  ASSERT_EQ(r.status, 0) << r.out << r.err;
  const Csv csv = read_csv(dir_ / "a.csv");
  const std::vector<std::string> key = {"model", "layout", "dtype", "layers", "q_heads",
                                        "kv_heads", "head_dim", "context", "window", "threads",
                                        "pin", "placement", "cache_state", "aggregate",
                                        "repetition"};
  std::map<std::string, std::map<std::string, std::string>> append, reference;
  for (const auto& row : csv.rows) {
    std::string k;
    for (const std::string& c : key) k += row.at(c) + "|";
    if (row.at("benchmark") == "append") append[k] = row;
    if (row.at("benchmark") == "append_memcpy") reference[k] = row;
  }
  ASSERT_EQ(append.size(), 2u * 2 * 6);  // 2 contexts x 2 dtypes x (2 repetitions + 4 aggregates)
  ASSERT_EQ(reference.size(), append.size());
  for (const auto& [k, a] : append) {
    ASSERT_TRUE(reference.count(k)) << "no append_memcpy row for " << k;
    const auto& m = reference.at(k);
    EXPECT_EQ(m.at("valid"), "1") << k;
    EXPECT_EQ(m.at("bytes_written"), a.at("bytes_written")) << k;
    EXPECT_EQ(m.at("bytes_read"), a.at("bytes_written")) << k;
    if (a.at("aggregate") == "none") {
      EXPECT_GT(std::stod(m.at("ns_per_step")), 0);
    }
  }
}

// cache_state fresh runs the append families only (both store kinds), each with its valid memcpy
// partner, and says which families it left out.
TEST_F(KvbenchBinary, FreshAppendRowsComeAloneWithTheirReference) {
  const Result r = run("run --config ci-smoke --benchmarks decode_step,paged_attention,attention,append,append_streaming "
                       "--cache-state warm,fresh --ceilings none --context 64 --dtype fp32,int8 --repetitions 1 --out fresh.csv");
  ASSERT_EQ(r.status, 0) << r.out << r.err;
  // Each left-out family named once: attention too, though paged_attention's name holds it.
  EXPECT_NE(r.err.find("cache_state fresh runs append, append_streaming and append_memcpy only; not decode_step, paged_attention, attention\n"),
            std::string::npos)
      << r.err;
  const Csv csv = read_csv(dir_ / "fresh.csv");
  std::map<std::string, int> rows;  // benchmark|cache_state
  for (const auto& row : csv.rows) {
    if (row.at("benchmark").rfind("ceiling", 0) == 0) continue;
    ++rows[row.at("benchmark") + "|" + row.at("cache_state")];
    EXPECT_EQ(row.at("valid"), "1") << row.at("benchmark") << " " << row.at("cache_state");
    // Nothing untimed between fresh steps: min-time decides their count, as for warm rows (the
    // cold state's fixed 3..20 steps would time the first, slowest laps).
    if (row.at("cache_state") == "fresh" && row.at("aggregate") == "none") {
      EXPECT_GT(std::stoll(row.at("iterations")), 20) << row.at("benchmark");
    }
  }
  EXPECT_GT(rows["decode_step|warm"], 0);
  EXPECT_EQ(rows["decode_step|fresh"], 0);
  EXPECT_GT(rows["append|fresh"], 0);
  EXPECT_EQ(rows["append_memcpy|fresh"], rows["append|fresh"]);
  EXPECT_EQ(rows["append|warm"], rows["append|fresh"]);
  EXPECT_EQ(rows["append_streaming|fresh"], rows["append|fresh"]);
  EXPECT_EQ(rows["append_streaming|warm"], rows["append|fresh"]);
}

// --inject-fault must fail the byte comparisons with the append's rows too (append_memcpy's and
// append_streaming's).
TEST_F(KvbenchBinary, InjectedFaultFailsTheAppendMemcpyCheck) {
  const Result r = run("run --config ci-smoke --benchmarks append_streaming --ceilings none --context 64 "
                       "--dtype int8 --repetitions 1 --inject-fault --out f.csv");
  EXPECT_EQ(r.status, 1) << r.out << r.err;
  const Csv csv = read_csv(dir_ / "f.csv");
  std::map<std::string, int> rows;
  for (const auto& row : csv.rows) {
    if (row.at("benchmark").rfind("append", 0) != 0) continue;
    ++rows[row.at("benchmark")];
    EXPECT_EQ(row.at("valid"), "0") << row.at("benchmark");
  }
  EXPECT_GT(rows["append_memcpy"], 0);  // added with append_streaming, as with append
  EXPECT_EQ(rows["append_streaming"], rows["append_memcpy"]);
  EXPECT_EQ(rows["append"], 0);
}

// --inject-fault overwrites the append's slot again after its validation run, as an append that
// stored nothing would leave it: the append's own row check must fail it (its slot is overwritten
// before that run too, so rows the decode validation wrote at the same slot cannot pass it).
TEST_F(KvbenchBinary, InjectedFaultFailsTheAppendRowCheck) {
  for (const char* state : {"warm", "fresh"}) {
    SCOPED_TRACE(state);
    const std::string out = std::string("a-") + state + ".csv";
    const Result r = run(std::string("run --config ci-smoke --benchmarks append --ceilings none --context 64 "
                                     "--dtype int8 --repetitions 1 --inject-fault --cache-state ") +
                         state + " --out " + out);
    EXPECT_EQ(r.status, 1) << r.out << r.err;
    EXPECT_NE(r.err.find("VALIDATION FAILED for append "), std::string::npos) << r.err;
    EXPECT_NE(r.err.find("does not decode to the appended values"), std::string::npos) << r.err;
    const Csv csv = read_csv(dir_ / out);
    int rows = 0;
    for (const auto& row : csv.rows) {
      if (row.at("benchmark") != "append") continue;
      ++rows;
      EXPECT_EQ(row.at("valid"), "0");
    }
    EXPECT_GT(rows, 0);
  }
}

// --ceiling-bracket: rows of two workers carry the workers' barrier crossing right before and right
// after them, and their FMA bursts' slowest worker (its share of the fastest's rate, its PU); 1-thread
// rows leave them empty.
TEST_F(KvbenchBinary, BracketedRowsOfTwoWorkersCarryTheirCrossing) {
  if (std::thread::hardware_concurrency() < 2) GTEST_SKIP() << "needs two PUs";
  const Result r = run("run --config ci-smoke --benchmarks decode_step,append --context 64 --dtype fp32 "
                       "--threads 1,2 --repetitions 2 --ceilings barrier --ceiling-bracket --out b.csv");
  ASSERT_EQ(r.status, 0) << r.out << r.err;
  EXPECT_NE(r.err.find("barrier bracket after: 2 threads"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("of the fastest's rate (PU "), std::string::npos) << r.err;
  int bracketed = 0;
  for (const auto& row : read_csv(dir_ / "b.csv").rows) {
    const std::string& b = row.at("benchmark");
    if (b.rfind("ceiling_", 0) == 0) continue;
    SCOPED_TRACE(b + " " + row.at("threads") + " " + row.at("aggregate"));
    expect_slowest_worker(row);
    if (row.at("threads") == "1") {
      EXPECT_EQ(row.at("barrier_before_ns"), "");
      EXPECT_EQ(row.at("barrier_after_ns"), "");
      continue;
    }
    ASSERT_FALSE(row.at("barrier_before_ns").empty());
    EXPECT_GT(std::stod(row.at("barrier_before_ns")), 0);
    EXPECT_GT(std::stod(row.at("barrier_after_ns")), 0);
    ++bracketed;
  }
  EXPECT_GT(bracketed, 0);
  EXPECT_NE(r.out.find(" ns\n"), std::string::npos) << r.out;  // "; crossing 303 -> 304 ns" in the summary
}

// Two workers: decode_step and attention rows say what share of the workers' time went to
// waiting at the per-layer barriers, and for which PU's worker they waited most; the
// barrier-free append rows and 1-thread rows leave both empty.
TEST_F(KvbenchBinary, TwoThreadDecodeRowsCarryTheirBarrierWait) {
  if (std::thread::hardware_concurrency() < 2) GTEST_SKIP() << "needs two PUs";
  const Result r = run("run --config ci-smoke --benchmarks decode_step,attention,append --context 256 --dtype fp32 "
                       "--threads 1,2 --repetitions 1 --out w.csv");
  ASSERT_EQ(r.status, 0) << r.out << r.err;
  const Csv csv = read_csv(dir_ / "w.csv");
  int waited_rows = 0;
  for (const auto& row : csv.rows) {
    const std::string& b = row.at("benchmark");
    if (b.rfind("ceiling_", 0) == 0) continue;
    SCOPED_TRACE(b + " " + row.at("threads") + " " + row.at("aggregate"));
    const bool barriers = (b == "decode_step" || b == "attention") && row.at("threads") == "2";
    if (!barriers) {
      EXPECT_EQ(row.at("barrier_wait_pct"), "");
      EXPECT_EQ(row.at("barrier_slowest_pu"), "");
      continue;
    }
    ASSERT_FALSE(row.at("barrier_wait_pct").empty());
    const std::string& aggregate = row.at("aggregate");
    if (aggregate == "stddev" || aggregate == "cv") {  // a spread of shares names no worker
      EXPECT_EQ(row.at("barrier_slowest_pu"), "");
      EXPECT_EQ(row.at("barrier_slowest_pct"), "");
      continue;
    }
    if (std::stod(row.at("barrier_wait_pct")) == 0) {  // nobody waited: nobody to name
      EXPECT_EQ(row.at("barrier_slowest_pu"), "");
      continue;
    }
    // The worker the others waited for most is one of the row's PUs. Every wait is for one
    // worker, so the shares sum to 100% and the largest of two is at least half (so are their
    // medians and means, which sum to 100% too).
    const std::string pus = "+" + row.at("pu_list") + "+";
    EXPECT_NE(pus.find("+" + row.at("barrier_slowest_pu") + "+"), std::string::npos) << pus;
    ASSERT_FALSE(row.at("barrier_slowest_pct").empty());
    const double slowest = std::stod(row.at("barrier_slowest_pct"));
    EXPECT_GE(slowest, 50 * (1 - 1e-5));  // rounded to the CSV's digits
    EXPECT_LE(slowest, 100 * (1 + 1e-5));
    if (aggregate != "none") continue;
    ++waited_rows;
    const double pct = std::stod(row.at("barrier_wait_pct"));
    EXPECT_GT(pct, 0);
    EXPECT_LT(pct, 100);
  }
  EXPECT_EQ(waited_rows, 2);
  // The summary (of the one repetition) names the PU where the workers waited 1% or more.
  bool named = false;
  for (const auto& row : csv.rows) {
    named |= row.at("aggregate") == "none" && !row.at("barrier_wait_pct").empty() &&
             std::stod(row.at("barrier_wait_pct")) >= 1;
  }
  EXPECT_NE(r.out.find("at barriers"), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find("% of it for PU ") != std::string::npos, named) << r.out;
  EXPECT_EQ(r.out.find("barrier_held_pct"), std::string::npos) << "per-worker counters shown: " << r.out;
}

// The run's own ceiling_fma rows, at its start and again after its last benchmark
// (ceiling_fma_end), record their slowest worker as the brackets do (a ceiling taken with one
// worker slowed is a slowed core's); one worker's rows leave it empty. Both ends are on stdout.
TEST_F(KvbenchBinary, FmaCeilingRowsAtBothEndsNameTheirSlowestWorker) {
  if (std::thread::hardware_concurrency() < 2) GTEST_SKIP() << "needs two PUs";
  const Result r = run("run --config ci-smoke --benchmarks decode_step --context 64 --dtype fp32 --threads 1,2 "
                       "--repetitions 1 --ceilings all --out f.csv");
  ASSERT_EQ(r.status, 0) << r.out << r.err;
  EXPECT_NE(r.err.find("ceiling ceiling_fma (2 threads): "), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("ceiling ceiling_fma_end (2 threads): "), std::string::npos) << r.err;
  std::map<std::string, int> start_rows, end_rows;
  int decode_rows = 0;
  for (const auto& row : read_csv(dir_ / "f.csv").rows) {
    const std::string& b = row.at("benchmark");
    if (b == "decode_step") ++decode_rows;
    if (b != "ceiling_fma" && b != "ceiling_fma_end") continue;
    SCOPED_TRACE(b + " " + row.at("threads"));
    ++(b == "ceiling_fma" ? start_rows : end_rows)[row.at("threads")];
    EXPECT_EQ(decode_rows > 0, b == "ceiling_fma_end");
    EXPECT_GT(std::stod(row.at("gflops")), 0);
    expect_slowest_worker(row);
  }
  EXPECT_EQ(start_rows, (std::map<std::string, int>{{"1", 1}, {"2", 1}}));
  EXPECT_EQ(end_rows, start_rows);
  EXPECT_NE(r.out.find("FP32 FMA ceiling, the run's roof the faster end (ceiling_fma, ceiling_fma_end):\n"
                       "  1 thread, compact: "),
            std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("  2 threads, compact: "), std::string::npos) << r.out;
}

// --ceiling-bracket: every kernel row carries its own ceiling measured before and after it,
// ceiling_gbps is the larger and pct_of_ceiling follows it, and its workers' FMA burst at the
// same moments; the start-of-run ceiling rows are still written, without bracket columns.
TEST_F(KvbenchBinary, CeilingBracketSetsEachRowsCeilingToTheLargerEnd) {
  const Result r = run(std::string(kSmoke) +
                       "--context 64 --dtype fp32 --repetitions 1 --ceiling-bracket --out b.csv");
  ASSERT_EQ(r.status, 0) << r.out << r.err;
  EXPECT_NE(r.err.find("ceiling bracket before: ceiling_read"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("ceiling bracket after: ceiling_copy"), std::string::npos) << r.err;  // append
  EXPECT_NE(r.out.find("ceiling before -> after"), std::string::npos) << r.out;
  EXPECT_NE(r.err.find("core bracket after: ceiling_fma 1 thread(s)"), std::string::npos) << r.err;
  const Csv csv = read_csv(dir_ / "b.csv");
  int kernel_rows = 0, ceiling_rows = 0;
  for (const auto& row : csv.rows) {
    SCOPED_TRACE(row.at("benchmark"));
    if (row.at("benchmark").rfind("ceiling_", 0) == 0) {
      ++ceiling_rows;
      EXPECT_EQ(row.at("ceiling_before_gbps"), "");
      EXPECT_EQ(row.at("ceiling_after_gbps"), "");
      EXPECT_EQ(row.at("core_before_gflops"), "");
      continue;
    }
    ++kernel_rows;
    ASSERT_FALSE(row.at("core_before_gflops").empty());
    ASSERT_FALSE(row.at("core_after_gflops").empty());
    EXPECT_GT(std::stod(row.at("core_before_gflops")), 0);
    EXPECT_GT(std::stod(row.at("core_after_gflops")), 0);
    ASSERT_FALSE(row.at("ceiling_before_gbps").empty());
    ASSERT_FALSE(row.at("ceiling_after_gbps").empty());
    const double before = std::stod(row.at("ceiling_before_gbps"));
    const double after = std::stod(row.at("ceiling_after_gbps"));
    EXPECT_GT(before, 0);
    EXPECT_GT(after, 0);
    EXPECT_EQ(std::stod(row.at("ceiling_gbps")), std::max(before, after));
    EXPECT_NEAR(std::stod(row.at("pct_of_ceiling")),
                100 * std::stod(row.at("gbps")) / std::max(before, after),
                1e-9 * std::stod(row.at("pct_of_ceiling")));
  }
  EXPECT_EQ(kernel_rows, 3);  // decode_step, append, append_memcpy x 1 repetition
  EXPECT_GT(ceiling_rows, 0);
}

// --ceilings none --ceiling-bracket (here from INI keys) is defined: no ceiling_* rows, and
// every kernel row's ceiling is its bracket alone.
TEST_F(KvbenchBinary, CeilingBracketWithoutStartOfRunCeilingsFromAnIniFile) {
  std::ofstream(dir_ / "bracket.ini")
      << "model = custom\nlayers = 2\nq-heads = 4\nkv-heads = 2\nhead-dim = 64\n"
         "context = 64\nmax-context = 4096\ndtype = int8\nthreads = 1\n"
         "benchmarks = decode_step,prefill_copy\nceilings = none\nrepetitions = 1\n"
         "min-time = 0.01\nceiling-bracket = true\n";
  const Result r = run("run --config bracket.ini --out n.csv");
  ASSERT_EQ(r.status, 0) << r.out << r.err;
  const Csv csv = read_csv(dir_ / "n.csv");
  ASSERT_EQ(csv.rows.size(), 2u);
  for (const auto& row : csv.rows) {
    EXPECT_NE(row.at("benchmark").rfind("ceiling_", 0), 0u);
    EXPECT_FALSE(row.at("ceiling_gbps").empty()) << row.at("benchmark");
    EXPECT_EQ(std::stod(row.at("ceiling_gbps")), std::max(std::stod(row.at("ceiling_before_gbps")),
                                                           std::stod(row.at("ceiling_after_gbps"))));
  }
}

TEST_F(KvbenchBinary, NeverOverwritesAnExistingFile) {
  std::ofstream(dir_ / "precious.csv") << "keep me\n";
  const Result r = run(std::string(kSmoke) + "--out precious.csv");
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.err.find("exists"), std::string::npos) << r.err;
  EXPECT_EQ(slurp(dir_ / "precious.csv"), "keep me\n");
  // --append refuses a file with other columns, and still leaves it alone.
  const Result a = run(std::string(kSmoke) + "--out precious.csv --append");
  EXPECT_EQ(a.status, 2) << a.err;
  EXPECT_EQ(slurp(dir_ / "precious.csv"), "keep me\n");
  // --force is the explicit way to replace it.
  const Result f = run(std::string(kSmoke) + "--out precious.csv --force --ceilings none");
  EXPECT_EQ(f.status, 0) << f.err;
  EXPECT_NE(slurp(dir_ / "precious.csv").find("schema_version"), std::string::npos);
}

TEST_F(KvbenchBinary, ResumeAfterKilledRunCompletesWithoutLosingRows) {
  // Start a run, kill it once some benchmark rows are on disk, then resume.
  const fs::path csv_path = dir_ / "killed.csv";
  // exec, so that the pid killed below is kvbench itself and nothing keeps writing.
  const std::string cmd = "cd '" + dir_.string() + "' && KVBENCH_MODELS_DIR='" + kSourceDir +
                          "/configs/models' exec '" + kKvbench + "' run --config ci-smoke --min-time 0.2 --out killed.csv";
  const pid_t pid = fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    execl("/bin/sh", "sh", "-c", ("exec >/dev/null 2>&1; " + cmd).c_str(), nullptr);
    _exit(127);
  }
  // Up to 3 minutes: under ASan the start ceilings alone (four read loops per level) took more
  // than the 30 s this waited before (CI of main aca9161); the loop ends at the first row.
  bool saw_rows = false;
  for (int i = 0; i < 3600 && !saw_rows; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    saw_rows = slurp(csv_path).find("decode_step") != std::string::npos;
  }
  kill(pid, SIGKILL);
  int status = 0;
  waitpid(pid, &status, 0);
  ASSERT_TRUE(saw_rows);
  const std::string before = slurp(csv_path);
  const std::size_t last_newline = before.rfind('\n');
  ASSERT_NE(last_newline, std::string::npos);
  const std::string complete_prefix = before.substr(0, last_newline + 1);

  // Make sure the kill-mid-row case is exercised even when the kill landed between rows.
  if (before.back() == '\n') std::ofstream(csv_path, std::ios::app) << "1,partial-row";
  const Result r = run("run --config ci-smoke --out killed.csv --resume");
  ASSERT_EQ(r.status, 0) << r.out << r.err;
  EXPECT_NE(r.err.find("partial row"), std::string::npos) << r.err;
  bool aside = false;
  for (const auto& entry : fs::directory_iterator(dir_)) {
    aside |= entry.path().filename().string().rfind("killed.csv.partial-", 0) == 0;
  }
  EXPECT_TRUE(aside) << "the partial row was not kept";
  const std::string after = slurp(csv_path);
  EXPECT_EQ(after.compare(0, complete_prefix.size(), complete_prefix), 0) << "rows were lost";
  // Every configuration is now complete: each (benchmark, dtype, context) has its cv row.
  const Csv csv = read_csv(csv_path);
  std::set<std::string> with_cv;
  for (const auto& row : csv.rows) {
    if (row.at("aggregate") == "cv") {
      with_cv.insert(row.at("benchmark") + row.at("dtype") + row.at("context"));
    }
  }
  EXPECT_EQ(with_cv.size(), 20u);

  // Resuming a complete file runs nothing and adds no row.
  const Result again = run("run --config ci-smoke --out killed.csv --resume");
  ASSERT_EQ(again.status, 0) << again.err;
  EXPECT_EQ(slurp(csv_path), after);
}

// A resumed run measures the ceilings of the thread count it still runs, with the end-of-run FMA
// burst and crossing, under its own run_id: its rows are held to this invocation's ceilings,
// not to those the file holds from the run it continues.
TEST_F(KvbenchBinary, AResumedRunHoldsItsRowsToItsOwnCeilings) {
  const std::string args =
      "run --config ci-smoke --benchmarks decode_step --dtype fp32 --repetitions 1 --ceilings all --out resumed.csv ";
  const Result first = run(args + "--context 64");
  ASSERT_EQ(first.status, 0) << first.err;
  const Result resumed = run(args + "--context 64,256 --resume");
  ASSERT_EQ(resumed.status, 0) << resumed.out << resumed.err;
  EXPECT_NE(resumed.err.find("1 configuration(s) already complete"), std::string::npos) << resumed.err;

  struct Invocation {
    std::map<std::string, double> read;  // ws_level -> ceiling_read GB/s
    std::map<std::string, int> ceilings;  // ceiling benchmark -> rows
    std::vector<std::map<std::string, std::string>> rows;
  };
  std::map<std::string, Invocation> by_run;
  std::vector<std::string> order;
  for (const auto& row : read_csv(dir_ / "resumed.csv").rows) {
    const std::string& id = row.at("run_id");
    if (!by_run.count(id)) order.push_back(id);
    Invocation& inv = by_run[id];
    const std::string& b = row.at("benchmark");
    if (b.rfind("ceiling_", 0) == 0) {
      ++inv.ceilings[b];
      if (b == "ceiling_read") inv.read[row.at("ws_level")] = std::stod(row.at("gbps"));
    } else if (row.at("aggregate") == "none") {
      inv.rows.push_back(row);
    }
  }
  ASSERT_EQ(order.size(), 2u) << "the resumed rows carry the first run's run_id";
  const std::vector<std::string> contexts = {"64", "256"};
  for (std::size_t i = 0; i < order.size(); ++i) {
    SCOPED_TRACE(order[i]);
    const Invocation& inv = by_run[order[i]];
    for (const char* b : {"ceiling_fma", "ceiling_fma_end", "ceiling_barrier", "ceiling_barrier_end"})
      EXPECT_EQ(inv.ceilings.count(b) ? inv.ceilings.at(b) : 0, 1) << b;
    EXPECT_FALSE(inv.read.empty());
    ASSERT_EQ(inv.rows.size(), 1u);
    const auto& row = inv.rows.front();
    EXPECT_EQ(row.at("context"), contexts[i]);
    ASSERT_TRUE(inv.read.count(row.at("ws_level"))) << row.at("ws_level");
    EXPECT_NEAR(std::stod(row.at("ceiling_gbps")), inv.read.at(row.at("ws_level")),
                1e-4 * inv.read.at(row.at("ws_level")));
  }
}

TEST_F(KvbenchBinary, ResumeRefusesAFileWrittenOnAnotherMachine) {
  // Another model name (column 6), or the same name with another CPU signature (column 7: two
  // guests both called "AMD EPYC" were a Zen 3 and a Zen 5). The columns before hold no commas.
  const std::vector<std::pair<int, std::string>> edits = {{5, "Some Other CPU"},
                                                          {6, "family 1 model 2 stepping 3"}};
  for (const auto& [column, value] : edits) {
    const std::string file = "other" + std::to_string(column) + ".csv";
    const Result first = run(std::string(kSmoke) + "--dtype fp32 --context 64 --out " + file);
    ASSERT_EQ(first.status, 0) << first.err;
    std::istringstream lines(slurp(dir_ / file));
    std::string line, edited;
    for (bool header = true; std::getline(lines, line); header = false) {
      std::size_t at = 0;
      for (int i = 0; i < column; ++i) at = line.find(',', at) + 1;
      const std::size_t end = line.find(',', at);
      edited += (header ? line : line.substr(0, at) + value + line.substr(end)) + "\n";
    }
    std::ofstream(dir_ / file, std::ios::trunc) << edited;
    const Result r = run(std::string(kSmoke) + "--dtype fp32 --context 64,128 --out " + file + " --resume");
    EXPECT_EQ(r.status, 2) << r.out << r.err;
    EXPECT_NE(r.err.find(value), std::string::npos) << r.err;
    EXPECT_NE(r.err.find("--out for a new file"), std::string::npos) << r.err;
    EXPECT_EQ(slurp(dir_ / file), edited) << "the refused resume changed the file";
  }
}

#ifdef KERNEL_BENCH_BINARY
// kernel_bench takes kvbench run's prefetch hint as --sw-prefetch=HINT (auto by default) and the
// append's slot request as --slot-prefetch=REQUEST (w), names them in its rows' label as the CSV's
// isa does, and refuses a bad one with exit status 2.
TEST_F(KvbenchBinary, KernelBenchTakesThePrefetchHint) {
  const std::string one_row = "--benchmark_filter='^floor/fp32/G:1/ctx:16$' --benchmark_min_time=0.001";
  const Result none = run(one_row + " --sw-prefetch=none", kKernelBench);
  ASSERT_EQ(none.status, 0) << none.out << none.err;
  EXPECT_NE(none.out.find("floor/fp32/G:1/ctx:16"), std::string::npos) << none.out;
  EXPECT_NE(none.out.find("+PF-NONE"), std::string::npos) << none.out;
  const Result t0 = run(one_row + " --sw-prefetch=t0", kKernelBench);
  ASSERT_EQ(t0.status, 0) << t0.out << t0.err;
  EXPECT_EQ(t0.out.find("+PF-"), std::string::npos) << t0.out;  // T0 is the isa's unmarked default
  const Result bad = run(one_row + " --sw-prefetch=t1", kKernelBench);
  EXPECT_EQ(bad.status, 2) << bad.out << bad.err;
  EXPECT_NE(bad.err.find("bad value 't1' for --sw-prefetch"), std::string::npos) << bad.err;
  EXPECT_EQ(run(one_row + " --no-such-flag", kKernelBench).status, 2);
  // ... and the int8 append's slot request as --slot-prefetch=REQUEST, named in its rows' label.
  const std::string append_row = "--benchmark_filter='^append_vs_memcpy/int8/' --benchmark_min_time=0.001";
  const Result slot = run(append_row + " --slot-prefetch=none --sw-prefetch=t0", kKernelBench);
  ASSERT_EQ(slot.status, 0) << slot.out << slot.err;
  EXPECT_NE(slot.out.find("append_vs_memcpy/int8"), std::string::npos) << slot.out;
  EXPECT_NE(slot.out.find("+SLOT-NONE"), std::string::npos) << slot.out;
  const Result w = run(append_row + " --sw-prefetch=t0 --slot-prefetch=w", kKernelBench);
  ASSERT_EQ(w.status, 0) << w.out << w.err;
  EXPECT_EQ(w.out.find("+SLOT-"), std::string::npos) << w.out;  // w is the isa's unmarked default
  const Result bad_slot = run(append_row + " --slot-prefetch=t2", kKernelBench);
  EXPECT_EQ(bad_slot.status, 2) << bad_slot.out << bad_slot.err;
  EXPECT_NE(bad_slot.err.find("bad value 't2' for --slot-prefetch"), std::string::npos) << bad_slot.err;
}

// overlap_threads/ registers each stream with the kernels' window and without (the read ceiling's
// own loop at fma:0/pf:0); checked at 1 thread, the one count every machine has.
TEST_F(KvbenchBinary, KernelBenchTimesTheThreadedStreamWithAndWithoutItsWindow) {
  const Result r = run("--benchmark_list_tests --benchmark_filter='^overlap_threads/'", kKernelBench);
  ASSERT_EQ(r.status, 0) << r.out << r.err;
  for (const char* row : {"overlap_threads/fma:0/threads:1/pf:0/", "overlap_threads/fma:0/threads:1/pf:4096/",
                          "overlap_threads/fma:24/threads:1/pf:0/", "overlap_threads/fma:24/threads:1/pf:4096/"})
    EXPECT_NE(r.out.find(row), std::string::npos) << row << " missing from\n" << r.out;
}

// kernel_bench's caches are allocated as kvbench run's are, and each row says whether the kernel
// backed its cache with transparent huge pages (1 yes, 0 no, -1 unknown): a rate on 4 KB pages is
// not comparable with the ceilings'.
TEST_F(KvbenchBinary, KernelBenchRowsSayWhetherTheCacheIsOnHugePages) {
  const Result r = run("--benchmark_filter='^floor/fp32/G:1/ctx:16$' --benchmark_min_time=0.001",
                       kKernelBench);
  ASSERT_EQ(r.status, 0) << r.out << r.err;
  const std::size_t at = r.out.find("huge_pages=");
  ASSERT_NE(at, std::string::npos) << r.out;
  const std::string value = r.out.substr(at + 11, r.out.find_first_of(" \n", at) - at - 11);
  EXPECT_TRUE(value == "1" || value == "0" || value == "-1") << value;
}
#endif

// A resumed series keeps one code path: rows written with another --sw-prefetch are refused.
TEST_F(KvbenchBinary, ResumeRefusesAFileWrittenWithAnotherPrefetchHint) {
  const Result first = run(std::string(kSmoke) + "--dtype fp32 --context 64 --sw-prefetch t2 --out pf.csv");
  ASSERT_EQ(first.status, 0) << first.err;
  const std::string before = slurp(dir_ / "pf.csv");
  const Result r = run(std::string(kSmoke) + "--dtype fp32 --context 64,128 --sw-prefetch t0 "
                       "--out pf.csv --resume");
  EXPECT_EQ(r.status, 2) << r.out << r.err;
  EXPECT_NE(r.err.find("+PF-T2"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("--out for a new file"), std::string::npos) << r.err;
  EXPECT_EQ(slurp(dir_ / "pf.csv"), before) << "the refused resume changed the file";
  const Result same = run(std::string(kSmoke) + "--dtype fp32 --context 64,128 --sw-prefetch t2 "
                          "--out pf.csv --resume");
  EXPECT_EQ(same.status, 0) << same.out << same.err;
}

// --slot-prefetch picks the int8 append's slot request; its rows say which in the isa column (w,
// the default, unmarked), and a resume under another request is refused like another window hint.
TEST_F(KvbenchBinary, SlotPrefetchIsNamedInTheIsaColumn) {
  const std::string int8 = std::string(kSmoke) + "--dtype int8 --context 64 ";
  const Result none = run(int8 + "--slot-prefetch none --out none.csv");
  ASSERT_EQ(none.status, 0) << none.out << none.err;
  EXPECT_NE(slurp(dir_ / "none.csv").find("+SLOT-NONE"), std::string::npos);
  const Result w = run(int8 + "--slot-prefetch w --out w.csv");
  ASSERT_EQ(w.status, 0) << w.out << w.err;
  EXPECT_EQ(slurp(dir_ / "w.csv").find("+SLOT-"), std::string::npos);
  const std::string before = slurp(dir_ / "none.csv");
  const Result r = run(int8 + "--slot-prefetch t0 --out none.csv --resume");
  EXPECT_EQ(r.status, 2) << r.out << r.err;
  EXPECT_NE(r.err.find("+SLOT-NONE"), std::string::npos) << r.err;
  EXPECT_EQ(slurp(dir_ / "none.csv"), before) << "the refused resume changed the file";
}

// --tile-order halves names itself in the isa column (linear, the default, unmarked), and its
// rows pass the run's validation against the double reference like linear's.
TEST_F(KvbenchBinary, TileOrderIsNamedInTheIsaColumn) {
  const std::string fp16 = std::string(kSmoke) + "--dtype fp16 --context 700 ";
  const Result halves = run(fp16 + "--tile-order halves --out halves.csv");
  ASSERT_EQ(halves.status, 0) << halves.out << halves.err;
  EXPECT_NE(slurp(dir_ / "halves.csv").find("+HALVES"), std::string::npos);
  const Result linear = run(fp16 + "--tile-order linear --out linear.csv");
  ASSERT_EQ(linear.status, 0) << linear.out << linear.err;
  EXPECT_EQ(slurp(dir_ / "linear.csv").find("+HALVES"), std::string::npos);
}

// kvbench topo lists the SIMD targets this binary runs here, best first; --simd-target caps the
// kernels and ceilings at one of them (the next best, where there is one), every row's isa
// column names it, its rows are valid, and a resume under the best target is refused; kvbench
// ceilings takes the same option and names the target it ran.
TEST_F(KvbenchBinary, SimdTargetIsListedAppliedAndNamedInTheIsaColumn) {
  const Result topo = run("topo --llc 32MiB");
  ASSERT_EQ(topo.status, 0) << topo.out << topo.err;
  const std::string tag = "(kvbench run --simd-target):";
  const std::size_t at = topo.out.find(tag);
  ASSERT_NE(at, std::string::npos) << topo.out;
  std::istringstream list(topo.out.substr(at + tag.size(), topo.out.find('\n', at) - at - tag.size()));
  std::vector<std::string> targets;
  for (std::string t; list >> t;) targets.push_back(t);
  ASSERT_FALSE(targets.empty()) << topo.out;
  const std::string target = targets.size() > 1 ? targets[1] : targets[0];
  std::string upper = target;
  for (char& c : upper) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  const std::string args = std::string(kSmoke) + "--dtype bf16 --out simd.csv ";
  const Result r = run(args + "--context 64 --simd-target " + target);
  ASSERT_EQ(r.status, 0) << r.out << r.err;
  const Csv csv = read_csv(dir_ / "simd.csv");
  ASSERT_FALSE(csv.rows.empty());
  for (const auto& row : csv.rows) {
    const std::string& isa = row.at("isa");
    EXPECT_EQ(isa.substr(0, isa.find('+')), upper) << isa;
    if (target.rfind("avx3", 0) != 0) {
      EXPECT_EQ(isa.find("+AVX512-BF16"), std::string::npos) << isa;
    }
    EXPECT_EQ(row.at("valid"), "1") << row.at("benchmark");
  }
  if (targets.size() > 1) {
    const std::string before = slurp(dir_ / "simd.csv");
    const Result best = run(args + "--context 64,128 --resume");
    EXPECT_EQ(best.status, 2) << best.out << best.err;
    EXPECT_NE(best.err.find(upper), std::string::npos) << best.err;
    EXPECT_EQ(slurp(dir_ / "simd.csv"), before) << "the refused resume changed the file";
  }
  const Result ceilings = run("ceilings --threads 1 --llc 8MiB --min-time 0.01 --simd-target " + target);
  ASSERT_EQ(ceilings.status, 0) << ceilings.out << ceilings.err;
  EXPECT_NE(ceilings.out.find("SIMD target " + upper + "\n"), std::string::npos) << ceilings.out;
}

TEST_F(KvbenchBinary, BadInputExitsTwoNamingTheProblem) {
  struct Case {
    std::string args, expect;
    bool before_llc = false;  // refused before anything prints the LLC
  };
  const std::vector<Case> cases = {
      {std::string(kSmoke) + "--contxt 5", "did you mean '--context'"},
      {std::string(kSmoke) + "--context 12x", "bad value '12x' for --context"},
      {std::string(kSmoke) + "--dtype fp8", "bad value 'fp8' for --dtype"},
      {std::string(kSmoke) + "--slot-prefetch t2", "bad value 't2' for --slot-prefetch"},
      {std::string(kSmoke) + "--tile-order quarters", "bad value 'quarters' for --tile-order"},
      {std::string(kSmoke) + "--simd-target avx9", "bad value 'avx9' for --simd-target: expected best, "},
      {"ceilings --simd-target avx9", "bad value 'avx9' for --simd-target: expected best, ", true},
      {std::string(kSmoke) + "--context 8192", "beyond the model's capacity"},
      {"run --config no-such-sweep", "no-such-sweep"},
      {"run --model qwen3-0.6", "did you mean 'qwen3-0.6b'"},
      {std::string(kSmoke) + "--out missing.csv --append", "does not exist"},
      {"run --benchmark_bogus=1 --config ci-smoke", "benchmark_bogus"},
      {"sizee", "did you mean 'size'"},
      {"size --format xml", "bad value 'xml' for --format"},
      {std::string(kSmoke) + "--llc huge", "bad value 'huge' for --llc"},
      {"topo --llc 12", "bad value '12' for --llc"},
      {std::string(kSmoke) + "--sw-prefetch t1", "bad value 't1' for --sw-prefetch"},
      {"run --config ci-smoke --benchmarks decode_step,prefill_copy --cache-state fresh",
       "--cache-state fresh applies to append, append_streaming and append_memcpy only", true},
      {std::string(kSmoke) + "--cache-state hot", "expected warm, cold, weights or fresh"},
      // Refused before the machine probe and --llc auto's LLC probe (the LLC line is its report),
      // as none of them depends on the LLC's size: a bad thread count ("all" needs the probe), a
      // bad shape, a given context's memory (but for the cold state's flush buffer), a missing PU.
      {"run --model qwen3-0.6b --context 64 --threads 1,0", "bad value '0' for --threads", true},
      {std::string(kSmoke) + "--q-heads 6 --kv-heads 4 --llc auto", "not a multiple of kv_heads", true},
      {"run --model llama-3-405b --context 131072 --dtype fp32 --threads 1 --llc auto",
       "need more memory than is available (MemAvailable):\n  llama-3-405b", true},
      {"run --model qwen3-0.6b --context 64 --threads 1 --pin pus:4095 --llc auto",
       "PU 4095 in pin list pus:4095 does not exist", true},
      // A NUMA node that does not exist once failed every configuration at run time (exit 1).
      {"run --model qwen3-0.6b --context 64 --threads 1 --placement bind:4096 --llc auto",
       "bad value for --placement: placement bind:4096: no such NUMA node", true},
      // ab refuses its own bad options before its LLC probe and any run; a run's bad option ends
      // it at the first run, naming that run's log and its error.
      {"run run --config ci-smoke", "unexpected argument 'run'", true},
      {"ab -- --config ci-smoke", "needs --dir", true},
      {"ab --dir d --rouns 3 -- --config ci-smoke", "did you mean '--rounds'", true},
      {"ab --dir d --rounds 1 -- --config ci-smoke", "at least 2 are needed", true},
      {"ab --dir d --new /no/such/kvbench -- --config ci-smoke", "'/no/such/kvbench' is not an executable", true},
      {"ab --dir d --new-env KVBENCH_AMX -- --config ci-smoke", "bad value 'KVBENCH_AMX' for --new-env", true},
      {"ab --dir d -- --config ci-smoke --out x.csv", "leave out --out", true},
      {"ab --dir d --alpha 2 -- --config ci-smoke", "bad value for --alpha", true},
      {"ab --dir d --p-adjust bh -- --config ci-smoke", "unknown adjustment 'bh'", true},
      {"ab --dir d --gate ceilings -- --config ci-smoke", "--gate: unknown value 'ceilings'", true},
      {"ab --dir d --new-args --resume -- --config ci-smoke", "leave out --resume", true},
      {"ab --dir d -- --config ci-smoke --dtype fp33 --llc 8MiB",
       "round 1's base run exited 2 (d/base-1.log: kvbench: error: bad value 'fp33' for --dtype", true},
      // ceilings and topo check their values before probing the machine (--llc auto's probe
      // takes seconds); ceilings once took a negative --min-time.
      {"ceilings --min-time -1", "bad value for --min-time: expected seconds > 0", true},
      {"ceilings --threads 0", "bad value '0' for --threads", true},
      {"ceilings --pin bogus", "unknown pin policy 'bogus'", true},
      {"ceilings --placement bogus", "unknown placement 'bogus'", true},
      {"ceilings --placement bind:4096 --llc auto", "placement bind:4096: no such NUMA node", true},
      {"ceilings --threads 4096 --llc auto", "cannot run 4096 threads", true},
      // An option that does nothing without another is refused, not ignored.
      {std::string(kSmoke) + "--time-weights --llc auto", "--time-weights applies to --cache-state weights only", true},
      {"topo --llc 3", "bad value '3' for --llc", true},
      // A misspelt counter once ran the sweep and read `unsupported`, like a missing PMU.
      {std::string(kSmoke) + "--counters PAPI_TOT_CYK --llc auto",
       "bad value for --counters: 'PAPI_TOT_CYK' is not a PAPI preset (papi_avail lists them); "
       "did you mean PAPI_TOT_CYC?", true},
      {std::string(kSmoke) + "--counters sde:::kvbench::KV_BYTES_RAED --llc auto",
       "no SDE event 'kvbench::KV_BYTES_RAED' is registered (PAPI would read it as 0); did you mean sde:::kvbench::KV_BYTES_READ?", true},
      {std::string(kSmoke) + "--counters nosuch:::EVENT --llc auto", "PAPI has no component 'nosuch'", true},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.args);
    const Result r = run(c.args);
    EXPECT_EQ(r.status, 2) << r.out << r.err;
    EXPECT_NE(r.err.find(c.expect), std::string::npos) << r.err;
    if (c.before_llc) {
      EXPECT_EQ(r.err.find("LLC"), std::string::npos) << r.err;
    }
    if (c.args.rfind("topo ", 0) == 0) {
      EXPECT_EQ(r.out, "") << "topo printed before refusing";
    }
  }
  // size prints its table only once every model's values are read: none of it before an error.
  const Result size = run("size --model qwen3-0.6b,llama-3-8b --context 1024,-5");
  EXPECT_EQ(size.status, 2) << size.out << size.err;
  EXPECT_NE(size.err.find("bad value '-5' for --context"), std::string::npos) << size.err;
  EXPECT_EQ(size.out, "");
  // An unknown option inside a config file names the file and the closest option.
  std::ofstream(dir_ / "typo.ini") << "kv-head = 2\n";
  const Result r = run("run --config typo.ini");
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.err.find("typo.ini"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("'--kv-heads'"), std::string::npos) << r.err;
  // Nothing ran, so no results file was started.
  EXPECT_FALSE(fs::exists(dir_ / "results"));
}

// A preset this machine may not count still runs: each row holds its count, or a status saying why
// not and no value (never 0); a bare native name is not refused on a machine whose perf_event
// component is disabled, where PAPI cannot say whether it exists.
TEST_F(KvbenchBinary, ACounterTheMachineMayLackIsRecordedNotRefused) {
  const Result r = run(std::string(kSmoke) + "--dtype fp32 --context 64 --llc 8MiB --ceilings none "
                       "--counters PAPI_TOT_CYC --out c.csv");
  ASSERT_EQ(r.status, 0) << r.out << r.err;
  const Csv csv = read_csv(dir_ / "c.csv");
  ASSERT_FALSE(csv.rows.empty());
  for (const auto& row : csv.rows) {
    SCOPED_TRACE(row.at("benchmark"));
    const std::string status = row.at("c:PAPI_TOT_CYC:status"), value = row.at("c:PAPI_TOT_CYC");
    if (status == "ok" || status == "multiplexed") {
      EXPECT_GT(std::stod(value), 0.0);
    } else {
      EXPECT_TRUE(status == "unsupported" || status == "denied" || status == "not_read") << status;
      EXPECT_EQ(value, "");
    }
  }
  const std::string capabilities = run("topo").out;
  if (capabilities.find("component perf_event: disabled") != std::string::npos) {
    const Result bare = run(std::string(kSmoke) + "--dtype fp32 --context 64 --llc 8MiB --ceilings none "
                            "--counters NO_SUCH_NATIVE_EVENT --out bare.csv");
    EXPECT_EQ(bare.status, 0) << bare.err;
    EXPECT_EQ(read_csv(dir_ / "bare.csv").rows.at(0).at("c:NO_SUCH_NATIVE_EVENT:status"), "unsupported");
  }
}

// --llc SIZE replaces hwloc's LLC for everything sized from it, and the rows say so (an odd size,
// so that no machine's own L3 equals it).
TEST_F(KvbenchBinary, AGivenLlcSizesTheRunAndIsRecorded) {
  const Result r = run(std::string(kSmoke) + "--dtype fp32 --context 64 --llc 24580KiB --out llc.csv");
  ASSERT_EQ(r.status, 0) << r.out << r.err;
  EXPECT_NE(r.err.find("LLC 24.0 MiB from --llc"), std::string::npos) << r.err;
  const Csv csv = read_csv(dir_ / "llc.csv");
  ASSERT_FALSE(csv.rows.empty());
  const std::int64_t given = 24580 * 1024;
  int l3_ceilings = 0;
  for (const auto& row : csv.rows) {
    EXPECT_EQ(row.at("llc_source"), "option");
    EXPECT_EQ(row.at("llc_bytes"), std::to_string(given));
    EXPECT_FALSE(row.at("llc_hwloc_bytes").empty());
    EXPECT_NE(row.at("l3_bytes"), std::to_string(given));  // hwloc's: the machine's identity
    if (row.at("benchmark") == "ceiling_read" && row.at("ws_level") == "L3") {  // half of it
      ++l3_ceilings;
      EXPECT_NEAR(std::stod(row.at("working_set_bytes")), given / 2, 8192);
    }
  }
  EXPECT_GT(l3_ceilings, 0);
}

// A run that adds to a file with --llc auto sizes its LLC as the file's rows did, so a series
// keeps its contexts and ceilings however the knee wanders; a given --llc still decides, and a
// file sized from several LLCs leaves auto to decide afresh.
TEST_F(KvbenchBinary, ARunAddingToAFileKeepsItsLlc) {
  const std::string run_args = std::string(kSmoke) + "--dtype fp32 --ceilings none --out series.csv ";
  const std::int64_t given = 24580 * 1024;
  ASSERT_EQ(run(run_args + "--context 64 --llc 24580KiB").status, 0);
  const Result appended = run(run_args + "--context 128 --append");
  ASSERT_EQ(appended.status, 0) << appended.err;
  EXPECT_NE(appended.err.find("as recorded by the rows of 'series.csv'"), std::string::npos) << appended.err;
  const std::string two_runs = slurp(dir_ / "series.csv");
  const Result resumed = run(run_args + "--context 64,128 --resume");
  ASSERT_EQ(resumed.status, 0) << resumed.err;
  EXPECT_NE(resumed.err.find("6 configuration(s) already complete"), std::string::npos) << resumed.err;
  EXPECT_EQ(slurp(dir_ / "series.csv"), two_runs);
  Csv csv = read_csv(dir_ / "series.csv");
  ASSERT_FALSE(csv.rows.empty());
  for (const auto& row : csv.rows) {
    EXPECT_EQ(row.at("llc_source"), "option");
    EXPECT_EQ(row.at("llc_bytes"), std::to_string(given));
  }
  const Result hwloc = run(run_args + "--context 32 --append --llc hwloc");
  ASSERT_EQ(hwloc.status, 0) << hwloc.err;
  csv = read_csv(dir_ / "series.csv");
  EXPECT_EQ(csv.rows.back().at("context"), "32");
  EXPECT_EQ(csv.rows.back().at("llc_source"), "hwloc");
  const Result mixed = run(run_args + "--context 16 --append");
  ASSERT_EQ(mixed.status, 0) << mixed.err;
  EXPECT_NE(mixed.err.find("2 different LLCs"), std::string::npos) << mixed.err;
  EXPECT_EQ(mixed.err.find("as recorded by the rows"), std::string::npos) << mixed.err;
}

// --ceilings barrier measures the per-layer barrier's crossing alone, at each thread count the
// run uses: no bandwidth or FMA ceiling, so no row is held against one.
TEST_F(KvbenchBinary, CeilingsBarrierMeasuresOnlyTheCrossing) {
  const Result r = run("run --config ci-smoke --benchmarks decode_step --dtype fp32 --context 64 --threads 1,2 "
                       "--repetitions 1 --ceilings barrier --out barrier.csv");
  ASSERT_EQ(r.status, 0) << r.out << r.err;
  // The crossing at the start, then once more after the last benchmark (the rows between).
  std::map<std::string, int> barrier_by_threads, end_by_threads;
  int decode_rows = 0;
  for (const auto& row : read_csv(dir_ / "barrier.csv").rows) {
    const std::string& b = row.at("benchmark");
    if (b.rfind("ceiling_", 0) == 0) {
      EXPECT_GT(std::stod(row.at("ns_per_step")), 0);
      EXPECT_FALSE(row.at("pu_list").empty());
      if (b == "ceiling_barrier_end") {
        EXPECT_GT(decode_rows, 0);
        ++end_by_threads[row.at("threads")];
        continue;
      }
      EXPECT_EQ(b, "ceiling_barrier");
      EXPECT_EQ(decode_rows, 0);
      ++barrier_by_threads[row.at("threads")];
      continue;
    }
    ++decode_rows;
    EXPECT_EQ(row.at("ceiling_gbps"), "") << b;
    EXPECT_EQ(row.at("pct_of_ceiling"), "") << b;
  }
  EXPECT_EQ(barrier_by_threads, (std::map<std::string, int>{{"1", 1}, {"2", 1}}));
  EXPECT_EQ(end_by_threads, barrier_by_threads);
  EXPECT_GT(decode_rows, 0);
  EXPECT_NE(r.out.find("one crossing of the per-layer barrier (ceiling_barrier, ceiling_barrier_end):\n"
                       "  2 threads, compact: "),
            std::string::npos)
      << r.out;
  EXPECT_EQ(r.out.find("FP32 FMA ceiling"), std::string::npos) << r.out;  // none measured, none at the end
  const Result bad = run("run --config ci-smoke --ceilings barriers --out bad.csv");
  EXPECT_EQ(bad.status, 2);
  EXPECT_NE(bad.err.find("expected all, read, barrier or none"), std::string::npos) << bad.err;
}

// kvbench ab: the arms alternate, the order swapped every round, every run with the one LLC
// decided before the first; each arm's options reach only its runs; compare judges the rounds.
// An existing folder is refused untouched.
TEST_F(KvbenchBinary, AbAlternatesTheArmsAndComparesTheRounds) {
  const Result r = run("ab --dir ab --rounds 3 --new-args '--sw-prefetch none' -- --config ci-smoke "
                       "--benchmarks decode_step --dtype fp32 --context 64 --ceilings none");
  ASSERT_TRUE(r.status == 0 || r.status == 1) << r.out << r.err;  // 1: new significantly slower
  EXPECT_NE(r.err.find("every run gets --llc"), std::string::npos) << r.err;
  EXPECT_NE(r.out.find("3 rounds: base file i against new file i"), std::string::npos) << r.out;
  EXPECT_NE(slurp(dir_ / "ab" / "compare.md").find("round_ratios"), std::string::npos);
  EXPECT_NE(slurp(dir_ / "ab" / "compare.md").find("p_holm"), std::string::npos);
  EXPECT_NE(slurp(dir_ / "ab" / "compare.md").find("Exit status from kernel rows only (--gate kernels)"),
            std::string::npos);
  std::set<std::string> llc;
  for (const std::string arm : {"base", "new"}) {
    for (int round = 1; round <= 3; ++round) {
      const Csv csv = read_csv(dir_ / "ab" / (arm + "-" + std::to_string(round) + ".csv"));
      ASSERT_FALSE(csv.rows.empty()) << arm << round;
      for (const auto& row : csv.rows) {
        EXPECT_EQ(row.at("isa").find("+PF-NONE") != std::string::npos, arm == "new") << row.at("isa");
        EXPECT_EQ(row.at("valid"), "1");
        llc.insert(row.at("llc_bytes"));
      }
    }
  }
  EXPECT_EQ(llc.size(), 1u);
  // base, new; new, base; base, new: the order of the command lines.
  std::istringstream commands(slurp(dir_ / "ab" / "commands.txt"));
  std::string line, order;
  while (std::getline(commands, line)) {
    if (line.find(" run ") == std::string::npos) continue;
    order += line.find("/base-") != std::string::npos ? "b" : "n";
  }
  EXPECT_EQ(order, "bnnbbn");
  const std::string kept = slurp(dir_ / "ab" / "commands.txt");
  const Result again = run("ab --dir ab -- --config ci-smoke");
  EXPECT_EQ(again.status, 2);
  EXPECT_NE(again.err.find("'ab' exists and is not an empty folder"), std::string::npos) << again.err;
  EXPECT_EQ(slurp(dir_ / "ab" / "commands.txt"), kept);
}

// An arm of several binaries (builds of one source at other code addresses) runs them in turn,
// round r the ((r - 1) mod n)-th; a list with a missing file is refused before anything runs.
TEST_F(KvbenchBinary, AbRunsAnArmsBinariesInTurn) {
  const fs::path first = dir_ / "kvbench-a", second = dir_ / "kvbench-b";
  for (const fs::path& link : {first, second}) fs::create_symlink(kKvbench, link);
  const std::string options = " --rounds 3 -- --config ci-smoke --benchmarks decode_step --dtype fp32 --context 64 "
                              "--ceilings none";
  const Result r = run("ab --dir ab --base '" + first.string() + "," + second.string() + "'" + options);
  ASSERT_TRUE(r.status == 0 || r.status == 1) << r.out << r.err;
  std::istringstream commands(slurp(dir_ / "ab" / "commands.txt"));
  std::string line, order;
  while (std::getline(commands, line)) {
    if (line.find(" run ") == std::string::npos) continue;
    if (line.find("/new-") != std::string::npos) continue;
    order += line.rfind(first.string() + " run ", 0) == 0 ? "a" : line.rfind(second.string() + " run ", 0) == 0 ? "b" : "?";
  }
  EXPECT_EQ(order, "aba");
  const Result missing = run("ab --dir ab2 --new '" + first.string() + "," + (dir_ / "nowhere").string() + "'" + options);
  EXPECT_EQ(missing.status, 2);
  EXPECT_NE(missing.err.find("--new '" + (dir_ / "nowhere").string() + "' is not an executable file"), std::string::npos)
      << missing.err;
  EXPECT_FALSE(fs::exists(dir_ / "ab2" / "base-1.csv"));
}

// Against a build from before --llc (its run help does not name it, its runs refuse it and size
// from hwloc's LLC; here a script around this binary), ab gives the other arm --llc hwloc instead
// of an --llc for every run, so both size and label from hwloc's LLC; naming --llc for such an
// arm is refused before anything runs.
TEST_F(KvbenchBinary, AbAgainstABuildWithoutLlcGivesTheOtherArmHwlocs) {
  const fs::path old = dir_ / "kvbench-before-llc";
  {
    std::ofstream script(old);
    script << "#!/bin/sh\n"
              "for a in \"$@\"; do case \"$a\" in --llc|--llc=*) echo \"unknown option $a\" >&2; exit 2;; esac; done\n"
              "if [ \"$1 $2\" = \"run --help\" ]; then '" << kKvbench << "' run --help | grep -v -e --llc; exit 0; fi\n"
              "exec '" << kKvbench << "' \"$@\" --llc hwloc\n";  // sized from hwloc's LLC, as such builds are
  }
  fs::permissions(old, fs::perms::owner_all);
  const std::string options = " --rounds 2 -- --config ci-smoke --benchmarks decode_step --dtype fp32 --context 64 "
                              "--ceilings none";
  const Result r = run("ab --dir ab --base '" + old.string() + "'" + options);
  ASSERT_TRUE(r.status == 0 || r.status == 1) << r.out << r.err;
  EXPECT_NE(r.err.find("takes no --llc"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("so the new arm's runs get --llc hwloc"), std::string::npos) << r.err;
  EXPECT_EQ(r.err.find("every run gets --llc"), std::string::npos) << r.err;
  std::istringstream commands(slurp(dir_ / "ab" / "commands.txt"));
  std::string line;
  int runs = 0;
  while (std::getline(commands, line)) {
    if (line.find(" run ") == std::string::npos) continue;
    ++runs;
    EXPECT_EQ(line.find("--llc hwloc") != std::string::npos, line.find("/new-") != std::string::npos) << line;
  }
  EXPECT_EQ(runs, 4);
  for (const std::string arm : {"base", "new"}) {
    const Csv csv = read_csv(dir_ / "ab" / (arm + "-1.csv"));
    ASSERT_FALSE(csv.rows.empty()) << arm;
    for (const auto& row : csv.rows) EXPECT_EQ(row.at("llc_source"), "hwloc") << arm;
  }
  EXPECT_FALSE(fs::exists(dir_ / "ab" / "base-run-help.txt"));
  const Result refused = run("ab --dir ab2 --base '" + old.string() + "'" + options + " --llc 32MiB");
  EXPECT_EQ(refused.status, 2);
  EXPECT_NE(refused.err.find("takes no --llc"), std::string::npos) << refused.err;
  EXPECT_FALSE(fs::exists(dir_ / "ab2" / "base-1.csv"));
}

// --sw-prefetch picks the attention kernels' prefetch hint; rows say which where it is not the
// default T0, and validate under each.
TEST_F(KvbenchBinary, SoftwarePrefetchHintIsAppliedAndRecorded) {
  for (const char* hint : {"t0", "t2", "none"}) {
    SCOPED_TRACE(hint);
    const std::string out = std::string("pf-") + hint + ".csv";
    const Result r = run("run --config ci-smoke --benchmarks decode_step --context 300 --dtype fp16 "
                         "--ceilings none --sw-prefetch " + std::string(hint) + " --out " + out);
    ASSERT_EQ(r.status, 0) << r.out << r.err;
    const Csv csv = read_csv(dir_ / out);
    ASSERT_FALSE(csv.rows.empty());
    for (const auto& row : csv.rows) {
      const std::string& isa = row.at("isa");
      EXPECT_EQ(row.at("valid"), "1");
      if (std::string(hint) == "t0") {
        EXPECT_EQ(isa.find("+PF-"), std::string::npos) << isa;
      }
      if (std::string(hint) == "t2") {
        EXPECT_NE(isa.find("+PF-T2"), std::string::npos) << isa;
      }
      if (std::string(hint) == "none") {
        EXPECT_NE(isa.find("+PF-NONE"), std::string::npos) << isa;
      }
    }
  }
}

TEST_F(KvbenchBinary, LowPrecisionDtypesRunAndValidate) {
  const Result r = run("run --config ci-smoke --benchmarks decode_step,prefill_copy --context 64 "
                       "--dtype fp8_e4m3,fp8_e5m2,int4 --ceilings none --out low.csv");
  ASSERT_EQ(r.status, 0) << r.out << r.err;
  const Csv csv = read_csv(dir_ / "low.csv");
  std::set<std::string> dtypes;
  for (const auto& row : csv.rows) {
    dtypes.insert(row.at("dtype"));
    EXPECT_EQ(row.at("valid"), "1") << row.at("benchmark") << " " << row.at("dtype");
  }
  EXPECT_EQ(dtypes, (std::set<std::string>{"fp8_e4m3", "fp8_e5m2", "int4"}));
}

// Every variant family in one tiny sweep: rows with every schema column (the variant axes
// included), valid=1, axes filled only where they apply, memcpy_same_bytes added for the
// cache_* families, and the cost model in the bytes columns.
TEST_F(KvbenchBinary, VariantFamiliesProduceValidRowsWithTheirAxes) {
  const Result r = run(
      "run --config ci-smoke --context 64 --dtype fp32,int8 --threads 1 --ceilings none "
      "--repetitions 1 --min-time 0.005 --benchmarks paged_attention,batched_attention,"
      "chunked_attention,cache_repack,cache_grow,cache_clone,recompute_decode "
      "--block-size 16,128 --block-order contiguous,shuffled --batch 3 --seq-lens uniform,ragged "
      "--query-tokens 1,4 --out variants.csv");
  ASSERT_EQ(r.status, 0) << r.out << r.err;
  const Csv csv = read_csv(dir_ / "variants.csv");
  for (const char* column : {"block_size", "block_order", "seq_lens", "query_tokens", "batch",
                             "valid", "max_rel_err", "pu_list", "gbps", "working_set_bytes"}) {
    EXPECT_NE(std::find(csv.header.begin(), csv.header.end(), column), csv.header.end()) << column;
  }
  std::map<std::string, int> per_family;
  std::set<std::string> paged_points, batched_points, chunked_points;
  for (const auto& row : csv.rows) {
    const std::string& b = row.at("benchmark");
    SCOPED_TRACE(b + " " + row.at("dtype"));
    EXPECT_EQ(row.at("valid"), "1");
    EXPECT_FALSE(row.at("max_rel_err").empty());
    EXPECT_GT(std::stod(row.at("gbps")), 0);
    EXPECT_GT(std::stod(row.at("bytes_read")), 0);
    if (row.at("aggregate") != "none") continue;
    ++per_family[b];
    EXPECT_EQ(row.at("block_size").empty(), b != "paged_attention");
    EXPECT_EQ(row.at("seq_lens").empty(), b != "batched_attention");
    EXPECT_EQ(row.at("query_tokens").empty(), b != "chunked_attention");
    if (b == "paged_attention") paged_points.insert(row.at("block_size") + row.at("block_order"));
    if (b == "batched_attention") {
      batched_points.insert(row.at("seq_lens"));
      EXPECT_EQ(row.at("batch"), "3");
      // uniform and ragged hold the same total positions: the same bytes.
      EXPECT_GT(std::stod(row.at("tokens_per_s")), 0);
    }
    if (b == "chunked_attention") chunked_points.insert(row.at("query_tokens"));
    if (b == "cache_repack") {
      EXPECT_EQ(row.at("threads"), "1");
    }
    if (b == "cache_grow" || b == "memcpy_same_bytes") {
      // 2 layers x K,V x 2 heads x 64 positions x 64 dims (+ int8 scales), read and written.
      const double row_bytes = row.at("dtype") == "fp32" ? 256 : 64 + 4;
      EXPECT_EQ(std::stod(row.at("bytes_read")), 2 * 2 * 2 * 64 * row_bytes);
      EXPECT_EQ(row.at("bytes_written"), row.at("bytes_read"));
    }
  }
  EXPECT_EQ(paged_points.size(), 4u);
  EXPECT_EQ(batched_points, (std::set<std::string>{"uniform", "ragged"}));
  EXPECT_EQ(chunked_points, (std::set<std::string>{"1", "4"}));
  for (const char* family : {"cache_repack", "cache_grow", "cache_clone", "memcpy_same_bytes",
                             "recompute_decode"}) {
    EXPECT_EQ(per_family[family], 2) << family;  // one per dtype
  }
  EXPECT_EQ(per_family["paged_attention"], 8);
}

// A 5:1 hybrid of 6 layers: 5 rings of W = 64 positions and one full layer of 256. Bytes,
// SDE events and validation cover both parts.
TEST_F(KvbenchBinary, HybridSlidingPatternCountsBothParts) {
  const Result r = run("run --config ci-smoke --layers 6 --context 256 --window 64 "
                       "--sliding-pattern 5:1 --dtype fp32 --ceilings none --repetitions 1 "
                       "--min-time 0.005 --out hybrid.csv");
  ASSERT_EQ(r.status, 0) << r.out << r.err;
  const Csv csv = read_csv(dir_ / "hybrid.csv");
  int decode_rows = 0;
  for (const auto& row : csv.rows) {
    SCOPED_TRACE(row.at("benchmark"));
    EXPECT_EQ(row.at("valid"), "1");
    EXPECT_EQ(row.at("sliding_pattern"), "5:1");
    EXPECT_EQ(row.at("c:sde:::kvbench::KV_BYTES_READ"), row.at("bytes_read"));
    if (row.at("benchmark") == "decode_step") {
      ++decode_rows;
      // (5 x 64 + 1 x 256) positions x K,V x 2 heads x 64 dims x 4 bytes.
      EXPECT_EQ(row.at("working_set_bytes"), std::to_string((5 * 64 + 256) * 2 * 2 * 64 * 4));
    }
  }
  EXPECT_GT(decode_rows, 0);
}

TEST_F(KvbenchBinary, VariantValidationFailureIsCaught) {
  const Result r = run("run --config ci-smoke --context 64 --dtype fp32 --ceilings none "
                       "--repetitions 1 --min-time 0.005 --benchmarks paged_attention,"
                       "batched_attention,chunked_attention,cache_grow,recompute_decode "
                       "--inject-fault --out fault.csv");
  EXPECT_EQ(r.status, 1) << r.out << r.err;
  const Csv csv = read_csv(dir_ / "fault.csv");
  ASSERT_FALSE(csv.rows.empty());
  for (const auto& row : csv.rows) EXPECT_EQ(row.at("valid"), "0") << row.at("benchmark");
}

TEST_F(KvbenchBinary, BadVariantParametersExitTwo) {
  struct Case {
    std::string args, expect;
  };
  const std::string variants = "run --config ci-smoke --ceilings none --benchmarks ";
  const std::vector<Case> cases = {
      {variants + "paged_attention --block-size 0", "--block-size"},
      {variants + "paged_attention --block-order random", "bad value 'random' for --block-order"},
      {variants + "batched_attention --batch 0", "--batch"},
      {variants + "batched_attention --seq-lens skewed", "bad value 'skewed' for --seq-lens"},
      {variants + "chunked_attention --query-tokens 0", "--query-tokens"},
      {variants + "chunked_attention --query-tokens 65 --context 64", "exceeds the context 64"},
      {variants + "decode_step --window 8192", "exceeds the model's capacity 4096"},
      {variants + "paged_atention", "bad value 'paged_atention' for --benchmarks"},
      {variants + "decode_step --window 32 --sliding-pattern 5", "bad value '5' for --sliding-pattern"},
      {variants + "paged_attention --window 32 --sliding-pattern 1:1", "needs a uniform cache"},
      {"run --model qwen3-0.6b --context 16384 --threads 1 --ceilings none --benchmarks "
       "cache_clone --batch 64", "need more memory than is available"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.args);
    const Result r = run(c.args);
    EXPECT_EQ(r.status, 2) << r.out << r.err;
    EXPECT_NE(r.err.find(c.expect), std::string::npos) << r.err;
  }
  EXPECT_FALSE(fs::exists(dir_ / "results"));
}

TEST_F(KvbenchBinary, ValidationFailureMarksRowsAndExitsNonZero) {
  // A 1% error in one output element must be caught, reported and recorded.
  const Result r = run("run --config ci-smoke --benchmarks decode_step --context 64 "
                       "--dtype fp32 --ceilings none --inject-fault --out fault.csv");
  EXPECT_EQ(r.status, 1) << r.out << r.err;
  EXPECT_NE(r.err.find("VALIDATION FAILED"), std::string::npos) << r.err;
  const Csv csv = read_csv(dir_ / "fault.csv");
  ASSERT_FALSE(csv.rows.empty());
  for (const auto& row : csv.rows) {
    EXPECT_EQ(row.at("valid"), "0");
    EXPECT_GT(std::stod(row.at("max_rel_err")), 1e-3);
  }
}

TEST_F(KvbenchBinary, SkipInvalidDropsImpossibleCombinations) {
  const Result r = run(std::string(kSmoke) +
                       "--kv-heads 2,3 --skip-invalid --dry-run --out dry.csv");
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.err.find("skipping 4 invalid"), std::string::npos) << r.err;
  EXPECT_FALSE(fs::exists(dir_ / "dry.csv"));
}

// A variant's axis given for a run without that variant is named as ignored (a note, exit 0: a
// config's sweep may set it while --benchmarks narrows the run); one the run uses is not.
TEST_F(KvbenchBinary, AnAxisOfAVariantTheRunLeavesOutIsNamedAsIgnored) {
  const Result r = run(std::string(kSmoke) + "--batch 8 --query-tokens 2 --dry-run --out dry.csv");
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.err.find("--batch applies to batched_attention and cache_clone only"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("--query-tokens applies to chunked_attention only"), std::string::npos) << r.err;
  const Result used = run("run --config ci-smoke --benchmarks batched_attention --batch 8 --dry-run --out dry.csv");
  EXPECT_EQ(used.status, 0) << used.err;
  EXPECT_EQ(used.err.find("applies to"), std::string::npos) << used.err;
}

// prefill_copy's fp32 sources (one per layer) are 8x an int4 cache: a context whose int4 cache
// takes about a quarter of MemAvailable fits for decode_step, while its prefill sources need
// about twice the memory there is. Refused with exit 2, or skipped alone with --skip-invalid.
TEST_F(KvbenchBinary, PrefillSourcesBeyondMemoryAreRefusedOrSkipped) {
  std::ifstream meminfo("/proc/meminfo");
  std::string key;
  std::int64_t kib = 0;
  while (meminfo >> key >> kib && key != "MemAvailable:") meminfo.ignore(256, '\n');
  if (key != "MemAvailable:" || kib <= 0) GTEST_SKIP() << "no MemAvailable in /proc/meminfo";
  const std::int64_t int4_bytes_per_position = 2 * 32 * 32 * 128 / 2;
  const std::int64_t context = kib * 1024 / 4 / int4_bytes_per_position;
  const std::string args = "run --model custom --layers 32 --q-heads 32 --kv-heads 32 --head-dim 128 "
                           "--context " + std::to_string(context) + " --max-context " +
                           std::to_string(context) + " --dtype int4 --threads 1 --ceilings none "
                           "--benchmarks decode_step,prefill_copy --dry-run --out dry.csv";
  const Result refused = run(args);
  EXPECT_EQ(refused.status, 2) << refused.err;
  EXPECT_NE(refused.err.find("need more memory than is available"), std::string::npos) << refused.err;
  EXPECT_NE(refused.err.find("prefill_copy custom"), std::string::npos) << refused.err;
  const Result skipped = run(args + " --skip-invalid");
  EXPECT_EQ(skipped.status, 0) << skipped.err;
  EXPECT_NE(skipped.err.find("skipping 1 benchmark(s) that need more memory"), std::string::npos) << skipped.err;
  EXPECT_NE(skipped.out.find("decode_step custom"), std::string::npos) << skipped.out;
  EXPECT_EQ(skipped.out.find("prefill_copy custom"), std::string::npos) << skipped.out;
}

TEST_F(KvbenchBinary, SizeCsvHasExactPresetBytes) {
  const Result r = run("size --model qwen3-0.6b --context 1024 --dtype fp32,int8 --format csv");
  ASSERT_EQ(r.status, 0) << r.err;
  const std::vector<std::string> lines = split(r.out, '\n');
  ASSERT_GE(lines.size(), 3u);
  const std::vector<std::string> header = split(lines[0], ',');
  for (const char* column : {"model", "layers", "kv_heads", "head_dim", "context", "dtype",
                             "bytes_per_token", "total_bytes"}) {
    EXPECT_NE(std::find(header.begin(), header.end(), column), header.end()) << column;
  }
  EXPECT_NE(lines[1].find("qwen3-0.6b,28,16,8,128,1024,"), std::string::npos) << lines[1];
  EXPECT_NE(lines[1].find(",229376,8388608,234881024,"), std::string::npos) << lines[1];
  // Every preset sizes; the table mentions this machine's LLC.
  const Result all = run("size");
  EXPECT_EQ(all.status, 0) << all.err;
  EXPECT_NE(all.out.find("llama-3-405b"), std::string::npos);
  EXPECT_NE(all.out.find("mistral-7b"), std::string::npos);
  EXPECT_NE(all.out.find("(hwloc), MemAvailable"), std::string::npos) << all.out;
  // fits_llc against a given LLC: 24 MiB holds Qwen3-0.6B fp32 at 64 tokens (14.7 MB), not 128.
  const Result small = run("size --model qwen3-0.6b --context 64,128 --dtype fp32 --llc 24580KiB");
  ASSERT_EQ(small.status, 0) << small.err;
  EXPECT_NE(small.out.find("(option), MemAvailable"), std::string::npos) << small.out;
  const Result csv = run("size --model qwen3-0.6b --context 64,128 --dtype fp32 --llc 24580KiB --format csv");
  const std::vector<std::string> rows = split(csv.out, '\n');
  ASSERT_GE(rows.size(), 3u) << csv.out;
  EXPECT_EQ(rows[1].substr(rows[1].rfind(',', rows[1].size() - 3)), ",1,1") << rows[1];
  EXPECT_EQ(rows[2].substr(rows[2].rfind(',', rows[2].size() - 3)), ",0,1") << rows[2];
}

// --barrier-pairs prints one crossing for every two PUs, the same both ways, and refuses a pool of
// fewer than two bound PUs.
TEST_F(KvbenchBinary, BarrierPairsPrintAMatrixOfCrossings) {
  if (std::thread::hardware_concurrency() < 2) GTEST_SKIP() << "needs two PUs";
  const Result r = run("ceilings --barrier-pairs --threads 2 --min-time 0.01");
  ASSERT_EQ(r.status, 0) << r.out << r.err;
  EXPECT_NE(r.out.find("ns per crossing"), std::string::npos) << r.out;
  std::istringstream lines(r.out);
  std::string line, header, first, second;
  std::getline(lines, line);
  std::getline(lines, header);
  std::getline(lines, first);
  std::getline(lines, second);
  std::istringstream a(first), b(second);
  std::string pu_a, dash_a, ab, pu_b, ba, dash_b;
  a >> pu_a >> dash_a >> ab;
  b >> pu_b >> ba >> dash_b;
  EXPECT_EQ(dash_a, "-");
  EXPECT_EQ(dash_b, "-");
  EXPECT_EQ(ab, ba);
  EXPECT_GT(std::stod(ab), 0) << r.out;
  EXPECT_NE(r.out.find("pairs 1: least"), std::string::npos) << r.out;
  const Result one = run("ceilings --barrier-pairs --threads 1");
  EXPECT_EQ(one.status, 2);
  EXPECT_NE(one.err.find("--barrier-pairs needs at least two bound PUs"), std::string::npos) << one.err;
}

TEST_F(KvbenchBinary, HelpListsCommandsAndOptions) {
  const Result top = run("--help");
  EXPECT_EQ(top.status, 0);
  for (const char* cmd : {"run", "size", "topo", "ceilings", "report", "compare"}) {
    EXPECT_NE(top.out.find(cmd), std::string::npos) << cmd;
  }
  const Result help = run("run --help");
  EXPECT_EQ(help.status, 0);
  for (const char* opt : {"--context", "--cache-state", "--resume", "--skip-invalid", "--force"}) {
    EXPECT_NE(help.out.find(opt), std::string::npos) << opt;
  }
  EXPECT_EQ(run("").status, 2);
}

}  // namespace
