#include "harness/csv_writer.h"

#include <algorithm>
#include <gtest/gtest.h>
#include <libfccp/csv.h>
#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <sstream>

#include "harness/error.h"
#include "harness/metadata.h"
#include "harness/topology.h"

namespace kvb {
namespace {

std::string temp_path(const char* name) {
  return ::testing::TempDir() + "kvb_" + std::to_string(getpid()) + "_" + name + ".csv";
}

std::string slurp(const std::string& path) {
  std::ifstream f(path);
  std::stringstream s;
  s << f.rdbuf();
  return s.str();
}

TEST(CsvWriter, RoundTripsThroughFastCppCsvParser) {
  const std::string path = temp_path("roundtrip");
  std::remove(path.c_str());
  auto topo = Topology::discover();
  const RunMetadata meta = collect_metadata(*topo, {topo->pus()[0]});
  {
    CsvWriter w(path, csv_columns({"sde:::kvbench::KV_BYTES_READ", "PAPI_TOT_CYC"}), CsvWriter::Mode::kRefuse);
    for (int rep = 0; rep < 3; ++rep) {
      CsvRow row = metadata_columns(meta);
      row.insert(row.end(), {{"benchmark", "decode_step"}, {"model", "qwen3-0.6b"}, {"threads", "2"},
                             {"repetition", std::to_string(rep)}, {"ns_per_step", csv_number(1234.5 + rep)},
                             {"bytes_read", csv_number(235339776LL)},
                             {"c:sde:::kvbench::KV_BYTES_READ", "235339776"},
                             {"c:sde:::kvbench::KV_BYTES_READ:status", "ok"},
                             {"c:PAPI_TOT_CYC:status", "unsupported"}});
      w.write(row);
    }
    EXPECT_EQ(w.rows_written(), 3);
  }
  io::CSVReader<8> in(path);
  in.read_header(io::ignore_extra_column, "schema_version", "host", "benchmark", "repetition", "ns_per_step",
                 "c:sde:::kvbench::KV_BYTES_READ", "c:PAPI_TOT_CYC", "c:PAPI_TOT_CYC:status");
  int version = 0, rep = 0;
  std::string host, bench, cyc, cyc_status;
  double ns = 0;
  long long kv = 0;
  int n = 0;
  while (in.read_row(version, host, bench, rep, ns, kv, cyc, cyc_status)) {
    EXPECT_EQ(version, 1);
    EXPECT_EQ(host, meta.host);
    EXPECT_EQ(bench, "decode_step");
    EXPECT_EQ(rep, n);
    EXPECT_DOUBLE_EQ(ns, 1234.5 + n);
    EXPECT_EQ(kv, 235339776LL);
    EXPECT_EQ(cyc, "");  // not read: empty, never 0
    EXPECT_EQ(cyc_status, "unsupported");
    ++n;
  }
  EXPECT_EQ(n, 3);
  std::remove(path.c_str());
}

TEST(CsvWriter, NeverTruncatesAndChecksTheHeader) {
  const std::string path = temp_path("modes");
  std::remove(path.c_str());
  const std::vector<std::string> cols = csv_columns({});
  {
    CsvWriter w(path, cols, CsvWriter::Mode::kRefuse);
    w.write({{"benchmark", "append"}});
  }
  const std::string before = slurp(path);
  EXPECT_THROW(CsvWriter(path, cols, CsvWriter::Mode::kRefuse), HarnessError);
  EXPECT_EQ(slurp(path), before);
  try {
    CsvWriter w(path, csv_columns({"PAPI_TOT_CYC"}), CsvWriter::Mode::kAppend);
    FAIL() << "appended under a different header";
  } catch (const HarnessError& e) {
    EXPECT_NE(std::string(e.what()).find("header"), std::string::npos) << e.what();
  }
  EXPECT_EQ(slurp(path), before);
  {
    CsvWriter w(path, cols, CsvWriter::Mode::kAppend);
    w.write({{"benchmark", "attention"}});
  }
  const std::string after = slurp(path);
  EXPECT_EQ(after.substr(0, before.size()), before);
  EXPECT_EQ(std::count(after.begin(), after.end(), '\n'), 3);  // one header, two rows
  std::remove(path.c_str());
}

TEST(CsvWriter, RejectsValuesThatNeedQuotingAndUnknownColumns) {
  const std::string path = temp_path("reject");
  std::remove(path.c_str());
  {
    CsvWriter w(path, csv_columns({}), CsvWriter::Mode::kRefuse);
    EXPECT_THROW(w.write({{"cpu_model", "Xeon, 2.3GHz"}}), HarnessError);
    EXPECT_THROW(w.write({{"cpu_model", "say \"hi\""}}), HarnessError);
    EXPECT_THROW(w.write({{"cpu_model", "two\nlines"}}), HarnessError);
    EXPECT_THROW(w.write({{"no_such_column", "1"}}), HarnessError);
    EXPECT_EQ(w.rows_written(), 0);
  }
  const std::string text = slurp(path);
  EXPECT_EQ(std::count(text.begin(), text.end(), '\n'), 1);  // header only
  std::remove(path.c_str());
}

TEST(CsvWriter, SchemaColumnsInDocumentedOrder) {
  const std::vector<std::string>& c = csv_base_columns();
  EXPECT_EQ(c.front(), "schema_version");
  EXPECT_EQ(c.back(), "max_rel_err");
  // 57 + block_size, block_order, seq_lens, query_tokens, sliding_pattern, ceiling_before_gbps,
  // ceiling_after_gbps, cpu_signature, llc_source, llc_hwloc_bytes, core_before_gflops,
  // core_after_gflops, core_slowest_pct, core_slowest_pu, barrier_before_ns, barrier_after_ns,
  // barrier_wait_pct, barrier_slowest_pu, barrier_slowest_pct, thp_share, read_plain_gbps,
  // read_window_gbps, read_two_streams_gbps, read_four_streams_gbps
  EXPECT_EQ(c.size(), 81u);
  EXPECT_EQ(*(std::find(c.begin(), c.end(), "thp") + 1), "thp_share");
  EXPECT_EQ(*(std::find(c.begin(), c.end(), "llc_bytes") + 1), "llc_source");
  EXPECT_EQ(*(std::find(c.begin(), c.end(), "llc_source") + 1), "llc_hwloc_bytes");
  EXPECT_EQ(*(std::find(c.begin(), c.end(), "cpu_model") + 1), "cpu_signature");
  EXPECT_EQ(*(std::find(c.begin(), c.end(), "pct_of_ceiling") + 1), "ceiling_before_gbps");
  EXPECT_EQ(*(std::find(c.begin(), c.end(), "ceiling_before_gbps") + 1), "ceiling_after_gbps");
  EXPECT_EQ(*(std::find(c.begin(), c.end(), "ceiling_after_gbps") + 1), "core_before_gflops");
  EXPECT_EQ(*(std::find(c.begin(), c.end(), "core_before_gflops") + 1), "core_after_gflops");
  EXPECT_EQ(*(std::find(c.begin(), c.end(), "core_after_gflops") + 1), "core_slowest_pct");
  EXPECT_EQ(*(std::find(c.begin(), c.end(), "core_slowest_pct") + 1), "core_slowest_pu");
  EXPECT_EQ(*(std::find(c.begin(), c.end(), "core_slowest_pu") + 1), "barrier_before_ns");
  EXPECT_EQ(*(std::find(c.begin(), c.end(), "barrier_before_ns") + 1), "barrier_after_ns");
  EXPECT_EQ(*(std::find(c.begin(), c.end(), "barrier_after_ns") + 1), "barrier_wait_pct");
  EXPECT_EQ(*(std::find(c.begin(), c.end(), "barrier_wait_pct") + 1), "barrier_slowest_pu");
  EXPECT_EQ(*(std::find(c.begin(), c.end(), "barrier_slowest_pu") + 1), "barrier_slowest_pct");
  EXPECT_EQ(*(std::find(c.begin(), c.end(), "barrier_slowest_pct") + 1), "read_plain_gbps");
  EXPECT_EQ(*(std::find(c.begin(), c.end(), "read_plain_gbps") + 1), "read_window_gbps");
  EXPECT_EQ(*(std::find(c.begin(), c.end(), "read_window_gbps") + 1), "read_two_streams_gbps");
  EXPECT_EQ(*(std::find(c.begin(), c.end(), "read_two_streams_gbps") + 1), "read_four_streams_gbps");
  EXPECT_EQ(*(std::find(c.begin(), c.end(), "read_four_streams_gbps") + 1), "valid");
  EXPECT_EQ(*(std::find(c.begin(), c.end(), "ws_level") + 1), "block_size");  // end of the configuration group
  const std::vector<std::string> with = csv_columns({"PAPI_TOT_CYC"});
  EXPECT_EQ(with[with.size() - 2], "c:PAPI_TOT_CYC");
  EXPECT_EQ(with.back(), "c:PAPI_TOT_CYC:status");
  EXPECT_EQ(csv_number(0.5), "0.5");
  EXPECT_EQ(csv_number(42LL), "42");
}

}  // namespace
}  // namespace kvb
