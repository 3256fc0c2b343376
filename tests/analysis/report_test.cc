#include "analysis/report_command.h"

#include <gtest/gtest.h>

#include <algorithm>

#include <fstream>
// fccp copies file names with strncpy into a fixed buffer (GCC warns that they may be cut).
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wstringop-truncation"
#include <libfccp/csv.h>
#pragma GCC diagnostic pop
#include <map>
#include <sstream>

#include "analysis/ceiling_change.h"
#include "analysis/machine_results.h"
#include "analysis/report_figures.h"
#include "analysis/result_table.h"
#include "tests/analysis/synthetic_results.h"
#include "tests/analysis/test_support.h"

namespace kvb {
namespace {

namespace fs = std::filesystem;
using testing::SyntheticMachine;

std::string read(const fs::path& p) {
  std::ifstream in(p);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

// Two CPUs with different caches and bandwidths in one concatenated CSV.
fs::path write_multi_cpu_csv(const fs::path& dir) {
  SyntheticMachine a;
  SyntheticMachine b;
  b.cpu_model = "Synthetic CPU B";
  b.host = "hostb";
  b.run_id = "hostb-20261121T231500Z";
  b.l2_bytes = 2 * 1024 * 1024.0;
  b.llc_bytes = 96 * 1024 * 1024.0;
  b.gbps_l2 = 300;
  b.gbps_l3 = 150;
  b.gbps_dram = 60;
  b.fma_gflops = 250;
  b.seed = 2;
  auto rows = testing::synthetic_run(a);
  auto more = testing::synthetic_run(b);
  rows.insert(rows.end(), more.begin(), more.end());
  const fs::path csv = dir / "multi.csv";
  testing::write_text(csv, testing::to_csv(rows));
  return csv;
}

// A peer whose output failed its accuracy check is shown as such, with no kvbench/peer ratio in
// the headline or the peers table.
TEST(ReportCommand, APeerThatFailedValidationGetsNoRatio) {
  const fs::path dir = testing::scratch_dir("Report.InvalidPeer");
  auto rows = testing::synthetic_run(SyntheticMachine{});
  int peers = 0;
  for (auto& r : rows) {
    if (r["benchmark"] != "peer_torch") continue;
    r["valid"] = "0";
    r["max_rel_err"] = "0.16";
    ++peers;
  }
  ASSERT_GT(peers, 0);
  const fs::path csv = dir / "invalid-peer.csv";
  testing::write_text(csv, testing::to_csv(rows));
  const fs::path out = dir / "report";
  ASSERT_EQ(testing::run_command(report_main, {"report", csv.string(), "--out", out.string(), "--force"}), 0);
  const std::string md = read(out / "report.md");
  EXPECT_NE(md.find("peer output failed validation at ctx 1024 2T"), std::string::npos) << md;
  EXPECT_EQ(md.find("x at ctx 1024 2T"), std::string::npos) << md;
  EXPECT_NE(md.find("peer\\_torch (INVALID)"), std::string::npos) << md;
}

TEST(ReportCommand, RendersMultiCpuReportEndToEnd) {
  // Output stays in the build tree for inspection: tests/analysis/scratch/Report.EndToEnd/report.
  const fs::path dir = testing::scratch_dir("Report.EndToEnd");
  const fs::path csv = write_multi_cpu_csv(dir);
  const fs::path out = dir / "report";
  ASSERT_EQ(testing::run_command(report_main, {"report", csv.string(), "--out", out.string()}), 0);
  const std::string md = read(out / "report.md");
  for (const char* section : {"## Machines", "## Measured ceilings", "## Per configuration", "## Knees",
                              "## Model fit", "## kvbench vs peers", "Synthetic CPU A", "Synthetic CPU B",
                              "qwen3-0.6b"}) {
    EXPECT_NE(md.find(section), std::string::npos) << section;
  }
  // Headline first, with the synthetic peer (1.7x slower) matched at its shape.
  EXPECT_LT(md.find("## Headline"), md.find("## Machines"));
  EXPECT_NE(md.find("x at ctx 1024 2T"), std::string::npos) << md;
  // Ceilings pivoted: one column per thread count.
  EXPECT_NE(md.find("| ceiling | level | unit | 1 thread | 2 threads |"), std::string::npos) << md;
  EXPECT_NE(md.find("| ceiling\\_read | DRAM | GB/s |"), std::string::npos) << md;
  int figures = 0;
  for (const char* kind : {"roofline", "llc_fit", "context", "threads"}) {
    for (const char* cpu : {"cpu0", "cpu1"}) {
      for (const char* ext : {".svg", ".png", ".gp", ".dat"}) {
        const fs::path f = out / "figures" / (std::string(kind) + "_" + cpu + ext);
        ASSERT_TRUE(fs::exists(f)) << f;
        EXPECT_GT(fs::file_size(f), 100u) << f;
      }
      EXPECT_NE(md.find(std::string("figures/") + kind + "_" + cpu + ".png"), std::string::npos);
      ++figures;
    }
  }
  EXPECT_EQ(figures, 8);
  // No temporary directories left beside the output.
  for (const auto& e : fs::directory_iterator(dir)) EXPECT_EQ(e.path().filename().string().find(".report.tmp"), std::string::npos);
}

// report.md of write_multi_cpu_csv's two CPUs, written under scratch directory `name`.
std::string multi_cpu_report(const std::string& name) {
  const fs::path dir = testing::scratch_dir(name);
  const fs::path csv = write_multi_cpu_csv(dir);
  EXPECT_EQ(testing::run_command(report_main, {"report", csv.string(), "--out", (dir / "out").string()}), 0);
  return read(dir / "out" / "report.md");
}

// Under each machine's matrix, its cells counted by verdict, which must match the cells above it.
TEST(ReportCommand, AtAGlanceCountsItsCellsByVerdict) {
  const std::string md = multi_cpu_report("Report.GlanceTally");
  int machines = 0;
  for (std::size_t at = md.find("At a glance:"); at != std::string::npos; at = md.find("At a glance:", at + 1)) {
    ++machines;
    const auto table = md.find("| target | kernel | dtype |", at);
    const auto tally = md.find("Of the ", at);
    ASSERT_NE(table, std::string::npos);
    ASSERT_NE(tally, std::string::npos) << md.substr(at, 3000);
    int met = 0, not_met = 0, unsettled = 0;
    std::istringstream lines(md.substr(table, tally - table));
    const auto ends_with = [](const std::string& cell, const std::string& word) {
      return cell.size() >= word.size() && cell.compare(cell.size() - word.size(), word.size(), word) == 0;
    };
    for (std::string line; std::getline(lines, line);) {
      std::istringstream cells(line);
      for (std::string cell; std::getline(cells, cell, '|');) {
        while (!cell.empty() && cell.back() == ' ') cell.pop_back();
        if (ends_with(cell, " **not met**")) {
          ++not_met;
        } else if (ends_with(cell, " **unsettled**")) {
          ++unsettled;
        } else if (ends_with(cell, " met")) {
          ++met;
        }
      }
    }
    const std::string expected = "Of the " + std::to_string(met + not_met + unsettled) + " cells with a threshold: " +
                                 std::to_string(met) + " met, " + std::to_string(not_met) + " not met, " +
                                 std::to_string(unsettled) + " unsettled.";
    EXPECT_EQ(md.compare(tally, expected.size(), expected), 0) << md.substr(tally, 200) << "\nexpected: " << expected;
    EXPECT_GT(met, 0);
    EXPECT_GT(not_met, 0);  // the synthetic int8 LLC lines
  }
  EXPECT_EQ(machines, 2);
}

TEST(ReportCommand, EfficiencyTargetsFollowTheHeadlineWithOneTablePerMachine) {
  const std::string md = multi_cpu_report("Report.EfficiencyTargets");
  const auto begin = md.find("## Efficiency against targets");
  const auto end = md.find("## Machines");
  ASSERT_NE(begin, std::string::npos) << md;
  EXPECT_LT(md.find("## Headline"), begin);
  ASSERT_LT(begin, end);
  const std::string section = md.substr(begin, end - begin);
  EXPECT_NE(section.find("### cpu0: Synthetic CPU A"), std::string::npos) << section;
  EXPECT_NE(section.find("### cpu1: Synthetic CPU B"), std::string::npos) << section;
  EXPECT_NE(section.find("| target | configuration | measured | threshold | verdict |"), std::string::npos);
  // The synthetic kernels run at their level's ceiling (1% noise): the bandwidth targets are met,
  // judged against each run's own ceiling_read rows (the CSV has no ceiling_gbps column values).
  EXPECT_NE(section.find("| DRAM streaming: % of DRAM read ceiling (ws >= 4x LLC) | decode\\_step fp32 1T; worst: "),
            std::string::npos) << section;
  EXPECT_NE(section.find("| >= 90.0% | met |"), std::string::npos) << section;
  EXPECT_NE(section.find("| LLC-resident: % of L3 read ceiling | decode\\_step fp32 2T"), std::string::npos) << section;
  // Before each machine's full table, the same lines at a glance: a column per thread count.
  const auto glance = section.find("| target | kernel | dtype | 1T | 2T |");
  ASSERT_NE(glance, std::string::npos) << section;
  EXPECT_LT(glance, section.find("| target | configuration | measured | threshold | verdict |"));
  EXPECT_NE(section.find("| DRAM streaming | decode\\_step | fp32 | "), std::string::npos) << section;
  EXPECT_NE(section.find("| LLC-resident | decode\\_step | int8 | "), std::string::npos) << section;
  EXPECT_NE(section.find("% **not met** |"), std::string::npos) << section;  // the int8 LLC cells
  EXPECT_NE(section.find("% met |"), std::string::npos) << section;
  EXPECT_NE(section.find("| >= 70.0% | met |"), std::string::npos) << section;
  // The synthetic int8 kernel is capped by the FMA peak in the caches (~45% of the L3 ceiling),
  // and the line says the peak keeps every row from the target.
  EXPECT_NE(section.find("decode\\_step int8 2T; worst: 28L 16q/8kv d128 ctx 1024 | 4"), std::string::npos) << section;
  EXPECT_NE(section.find("| >= 70.0% | **not met** (5 of 5 rows); 5 of 5 rows out of reach even at the FP32 FMA "
                         "peak (there the least favourable would be at 4"),
            std::string::npos)
      << section;
  EXPECT_EQ(section.find("| GQA:"), std::string::npos) << section;  // no q_heads = kv_heads rows: no line
  // The peer took 1.7x kvbench's time at the same bytes: kvbench/peer GB/s = 1.7.
  EXPECT_NE(section.find("| Peers: kvbench GB/s / peer GB/s | peer\\_torch fp32 2T; "), std::string::npos) << section;
  EXPECT_NE(section.find("| none | informational |"), std::string::npos) << section;
}

// One median row of `benchmark` taking `ns` per step over `bytes` read (+ as many written for copies).
testing::CsvFields target_row(const SyntheticMachine& m, const std::string& benchmark, const std::string& dtype,
                              int q_heads, double ns, double bytes, const std::string& level, bool copy = false) {
  testing::CsvFields c = testing::machine_fields(m);
  const bool ceiling = benchmark.rfind("ceiling_", 0) == 0;
  c["benchmark"] = benchmark;
  if (!ceiling) {
    c["model"] = "custom";
    c["layout"] = "head_major";
    c["dtype"] = dtype;
    c["layers"] = "4";
    c["q_heads"] = std::to_string(q_heads);
    c["kv_heads"] = "8";
    c["head_dim"] = "128";
    c["context"] = "4096";
    c["batch"] = "1";
    c["cache_state"] = "warm";
  }
  c["threads"] = "2";
  c["ws_level"] = level;
  c["aggregate"] = "median";
  c["repetition"] = "-1";
  c["ns_per_step"] = std::to_string(ns);
  c["bytes_read"] = std::to_string(static_cast<long long>(bytes));
  c["bytes_written"] = copy ? std::to_string(static_cast<long long>(bytes)) : "0";
  c["working_set_bytes"] = std::to_string(static_cast<long long>(copy ? 2 * bytes : bytes));
  c["valid"] = "1";
  return c;
}

// A 2-thread prefill row of 90 GB/s run with --ceiling-bracket, held against the bracket's `before`
// end (the larger in these tests).
testing::CsvFields bracketed_prefill(const SyntheticMachine& m, const std::string& before, const std::string& after) {
  testing::CsvFields prefill = target_row(m, "prefill_copy", "fp32", 8, 2e6, 90e6, "DRAM", true);
  prefill["ceiling_gbps"] = before;
  prefill["ceiling_before_gbps"] = before;
  prefill["ceiling_after_gbps"] = after;
  return prefill;
}

TEST(ReportCommand, EfficiencyTargetsRenderGqaAppendAndPrefillLines) {
  const fs::path dir = testing::scratch_dir("Report.EfficiencyTargetsPairs");
  SyntheticMachine a;
  const std::vector<testing::CsvFields> rows = {
      target_row(a, "attention", "fp32", 8, 1000, 1e6, "L2"), target_row(a, "attention", "fp32", 32, 1300, 1e6, "L2"),
      target_row(a, "append", "bf16", 8, 120, 1e3, "L1", true),
      target_row(a, "append_memcpy", "bf16", 8, 100, 1e3, "L1", true),
      target_row(a, "append", "fp16", 8, 125.02, 1e3, "L1", true),  // 1.2502x: not met, not "1.25x"
      target_row(a, "append_memcpy", "fp16", 8, 100, 1e3, "L1", true),
      target_row(a, "append", "int8", 8, 120, 1e3, "L1", true),  // no append_memcpy partner
      target_row(a, "prefill_copy", "fp32", 8, 2e6, 90e6, "DRAM", true),  // 90 GB/s, 180 MB >= 4x LLC
      target_row(a, "ceiling_copy", "", 8, 1e6, 50e6, "DRAM", true)};      // 100 GB/s
  testing::write_text(dir / "in.csv", testing::to_csv(rows));
  ASSERT_EQ(testing::run_command(report_main, {"report", (dir / "in.csv").string(), "--out", (dir / "out").string()}), 0);
  const std::string md = read(dir / "out" / "report.md");
  for (const char* line :
       {"| GQA: time at G q heads per KV head / at G = 1 | attention fp32 2T, G = 4 (largest run <= 8); 4L 32q/8kv "
        "d128 ctx 4096 | 1.30x | <= 1.10x | **not met** (1 of 1 rows) |",
        "| Append: time / append\\_memcpy time | append bf16 2T; 4L 8q/8kv d128 ctx 4096 | 1.20x | <= 1.25x | met |",
        "| Append: time / append\\_memcpy time | append fp16 2T; 4L 8q/8kv d128 ctx 4096 | 1.2502x | <= 1.25x | **not "
        "met** (1 of 1 rows) |",
        "| Append | append | fp16 | 1.2502x **not met** |",
        "| Append: time / append\\_memcpy time | append int8 2T | - | <= 1.25x | not measured: 1 row without an "
        "append\\_memcpy row of the same configuration and run |",
        "| Prefill: % of copy ceiling (ceiling\\_copy) | prefill\\_copy fp32 2T; 4L 8q/8kv d128 ctx 4096 | 90.0% | "
        ">= 85.0% | met |"}) {
    EXPECT_NE(md.find(line), std::string::npos) << line << "\n" << md.substr(0, 4000);
  }
}

// Several machines: their headline cells side by side before the machines' own tables; one
// machine: its own table only.
TEST(ReportCommand, HeadlinesAcrossMachinesSideBySide) {
  const std::string md = multi_cpu_report("Report.HeadlineAcrossMachines");
  const auto headline = md.find("## Headline");
  const auto across = md.find("### Across machines", headline);
  ASSERT_NE(across, std::string::npos) << md.substr(0, 4000);
  EXPECT_LT(across, md.find("### cpu0: Synthetic CPU A", headline));
  EXPECT_LT(across, md.find("## Efficiency against targets"));
  EXPECT_NE(md.find("| dtype | KV cache in | cpu0 | cpu1 |"), std::string::npos);
  // The synthetic decode rows stream at about their level's ceiling (1% noise).
  for (const char* regime : {"| fp32 | DRAM, 1 thread | ", "| fp32 | DRAM, most threads | ", "| int8 | LLC, most threads | "}) {
    const auto row = md.find(regime);
    ASSERT_NE(row, std::string::npos) << regime << "\n" << md.substr(across, 3000);
    const std::string line = md.substr(row, md.find('\n', row) - row);
    EXPECT_EQ(std::count(line.begin(), line.end(), '|'), 5) << line;
    EXPECT_NE(line.find(" GB/s"), std::string::npos) << line;
  }
  const auto most = md.find("| fp32 | DRAM, most threads | ");
  EXPECT_NE(md.substr(most, md.find('\n', most) - most).find(" GB/s at 2T, "), std::string::npos);
  EXPECT_NE(md.find("cpu0: Synthetic CPU A (hosta); cpu1: Synthetic CPU B (hostb)."), std::string::npos);

  const fs::path dir = testing::scratch_dir("Report.HeadlineOneMachine");
  testing::write_text(dir / "one.csv", testing::to_csv(testing::synthetic_run(SyntheticMachine{})));
  ASSERT_EQ(testing::run_command(report_main, {"report", (dir / "one.csv").string(), "--out", (dir / "one").string()}), 0);
  EXPECT_EQ(read(dir / "one" / "report.md").find("### Across machines"), std::string::npos);
}

// Several machines: their lines side by side before the machines' own tables, each cell the
// machine's worst row over its thread counts and where it ran, then its thread counts by verdict.
TEST(ReportCommand, EfficiencyTargetsAcrossMachinesInOneTable) {
  const fs::path dir = testing::scratch_dir("Report.TargetsAcrossMachines");
  SyntheticMachine a;
  SyntheticMachine b;
  b.cpu_model = "Synthetic CPU B";
  b.host = "hostb";
  b.run_id = "hostb-20261121T231500Z";
  // ns per step over 200 MB from DRAM (>= 4x the 32 MiB LLC) at `threads`.
  auto dram = [](const SyntheticMachine& m, const std::string& benchmark, int threads, double ns) {
    testing::CsvFields c = target_row(m, benchmark, benchmark == "decode_step" ? "fp32" : "", 8, ns, 200e6, "DRAM");
    c["threads"] = std::to_string(threads);
    return c;
  };
  const std::vector<testing::CsvFields> rows = {
      dram(a, "ceiling_read", 1, 2e6), dram(a, "ceiling_read", 2, 2e6),  // 100 GB/s
      dram(a, "decode_step", 1, 2e6 / 0.95), dram(a, "decode_step", 2, 4e6),  // 95% (met), 50%
      dram(b, "ceiling_read", 1, 2e6), dram(b, "ceiling_read", 2, 2e6),
      dram(b, "decode_step", 1, 5e6), dram(b, "decode_step", 2, 2e6 / 0.45)};  // 40%, 45%
  testing::write_text(dir / "in.csv", testing::to_csv(rows));
  ASSERT_EQ(testing::run_command(report_main, {"report", (dir / "in.csv").string(), "--out", (dir / "out").string()}), 0);
  const std::string md = read(dir / "out" / "report.md");
  const auto efficiency = md.find("## Efficiency against targets");
  ASSERT_NE(efficiency, std::string::npos) << md;
  const auto across = md.find("### Across machines", efficiency);
  ASSERT_NE(across, std::string::npos) << md;
  EXPECT_LT(across, md.find("### cpu0: Synthetic CPU A", efficiency));  // the machine's own tables after it
  EXPECT_NE(md.find("| target | kernel | dtype | cpu0 | cpu1 |"), std::string::npos) << md;
  EXPECT_NE(md.find("| DRAM streaming | decode\\_step | fp32 | 50.0% at 2T: met at 1T; **not met** at 2T | 40.0% at "
                    "1T: **not met** |"),
            std::string::npos)
      << md.substr(across, 2000);
  EXPECT_NE(md.find("cpu0: Synthetic CPU A"), std::string::npos);
  EXPECT_NE(md.find("; cpu1: Synthetic CPU B"), std::string::npos) << md.substr(across, 2000);

  // One machine: its own tables only.
  const std::vector<testing::CsvFields> one(rows.begin(), rows.begin() + 4);
  testing::write_text(dir / "one.csv", testing::to_csv(one));
  ASSERT_EQ(testing::run_command(report_main, {"report", (dir / "one.csv").string(), "--out", (dir / "one").string()}), 0);
  const std::string single = read(dir / "one" / "report.md");
  EXPECT_EQ(single.find("### Across machines"), std::string::npos);
  EXPECT_NE(single.find("| DRAM streaming | decode\\_step | fp32 | 95.0% met | 50.0% **not met** |"), std::string::npos)
      << single.substr(0, 6000);
}

// DIR/targets.csv: the efficiency lines in full, one row per machine and line, readable by any CSV
// reader (the fresh append's line name has a comma, so it is quoted).
TEST(ReportCommand, WritesTheEfficiencyLinesAsCsv) {
  const fs::path dir = testing::scratch_dir("Report.TargetsCsv");
  SyntheticMachine a;
  testing::CsvFields ceiling = target_row(a, "ceiling_read", "", 8, 2e6, 200e6, "DRAM");  // 100 GB/s
  testing::CsvFields decode = target_row(a, "decode_step", "fp32", 8, 2e6 / 0.95, 200e6, "DRAM");  // 95%
  testing::CsvFields append = target_row(a, "append", "bf16", 8, 120, 1e3, "DRAM", true);
  testing::CsvFields memcpy_row = target_row(a, "append_memcpy", "bf16", 8, 100, 1e3, "DRAM", true);
  append["cache_state"] = memcpy_row["cache_state"] = "fresh";
  testing::write_text(dir / "in.csv", testing::to_csv({ceiling, decode, append, memcpy_row}));
  ASSERT_EQ(testing::run_command(report_main, {"report", (dir / "in.csv").string(), "--out", (dir / "out").string()}), 0);

  io::CSVReader<9, io::trim_chars<>, io::double_quote_escape<',', '"'>> in((dir / "out" / "targets.csv").string());
  in.read_header(io::ignore_extra_column, "machine", "target", "benchmark", "dtype", "threads", "worst", "threshold",
                 "direction", "verdict");
  std::map<std::string, std::vector<std::string>> lines;  // target|benchmark -> the other fields
  std::string machine, target, benchmark, dtype, threads, worst, threshold, direction, verdict;
  while (in.read_row(machine, target, benchmark, dtype, threads, worst, threshold, direction, verdict)) {
    lines[target + "|" + benchmark] = {machine, dtype, threads, worst, threshold, direction, verdict};
  }
  ASSERT_EQ(lines.size(), 2u);
  EXPECT_EQ(lines["dram_streaming|decode_step"],
            (std::vector<std::string>{"cpu0", "fp32", "2", "95", "90", "at_least", "met"}));
  EXPECT_EQ(lines["append|append (fresh, DRAM)"],
            (std::vector<std::string>{"cpu0", "bf16", "2", "1.2", "1.25", "at_most", "met"}));
}

// A GQA pair whose G row's flops at the measured FMA peak already take more than 1.10x its G = 1
// row's time says so in its verdict.
TEST(ReportCommand, TargetsOutOfTheFmaPeaksReachAreNamed) {
  const fs::path dir = testing::scratch_dir("Report.FmaPeakBound");
  SyntheticMachine a;
  testing::CsvFields grouped = target_row(a, "attention", "int8", 64, 3000, 1e6, "L2");
  grouped["flops"] = "200000";  // 2000 ns at 100 GFLOP/s: at best 2.00x of the G = 1 row's 1000 ns
  testing::CsvFields fma = target_row(a, "ceiling_fma", "", 8, 1000, 0, "");
  fma["flops"] = "100000";  // 100 GFLOP/s at two threads
  const std::vector<testing::CsvFields> rows = {target_row(a, "attention", "int8", 8, 1000, 1e6, "L2"), grouped, fma};
  testing::write_text(dir / "in.csv", testing::to_csv(rows));
  ASSERT_EQ(testing::run_command(report_main, {"report", (dir / "in.csv").string(), "--out", (dir / "out").string()}), 0);
  const std::string md = read(dir / "out" / "report.md");
  const std::string line =
      "| 3.00x | <= 1.10x | **not met** (1 of 1 rows); 1 of 1 row out of reach even at the FP32 FMA peak (there the "
      "least favourable would be at 2.00x) |";
  EXPECT_NE(md.find(line), std::string::npos) << line << "\n" << md.substr(0, 6000);
}

// report.md of `rows` written with the schema's columns plus `extra` (optional columns).
std::string report_of(const fs::path& dir, const std::vector<testing::CsvFields>& rows,
                      const std::vector<std::string>& extra) {
  std::vector<std::string> header = testing::schema_header();
  header.insert(header.end(), extra.begin(), extra.end());
  testing::write_text(dir / "in.csv", testing::to_csv(rows, header));
  EXPECT_EQ(testing::run_command(report_main, {"report", (dir / "in.csv").string(), "--out", (dir / "out").string()}), 0);
  return read(dir / "out" / "report.md");
}

// A ceiling_fma row (`benchmark`: or ceiling_fma_end) of two threads at `gflops`, its burst's
// slowest worker at `slowest_pct` of the fastest's rate, on PU 1.
testing::CsvFields fma_row(const SyntheticMachine& m, const std::string& benchmark, int gflops,
                           const std::string& slowest_pct) {
  testing::CsvFields r = target_row(m, benchmark, "", 8, 1000, 0, "");
  r["flops"] = std::to_string(gflops * 1000);  // over 1000 ns
  r["gflops"] = std::to_string(gflops);
  r["core_slowest_pct"] = slowest_pct;
  r["core_slowest_pu"] = "1";
  return r;
}

// The best ceiling_fma burst of a thread count taken with a worker slowed (core_slowest_pct below
// 90) says so in its cell, with the PU, and the table says what that means; a best burst whose
// workers ran within 10% of each other says nothing, even where another run's was slowed.
TEST(ReportCommand, AnFmaCeilingTakenWithAWorkerSlowedSaysSo) {
  SyntheticMachine a;
  const testing::CsvFields slowed = fma_row(a, "ceiling_fma", 100, "51.2");
  testing::CsvFields even = fma_row(a, "ceiling_fma", 80, "97");  // not the best
  even["run_id"] = "run-2";
  const std::vector<std::string> extra = {"core_slowest_pct", "core_slowest_pu"};
  const std::string md = report_of(testing::scratch_dir("Report.FmaSlowed"), {slowed, even}, extra);
  EXPECT_NE(md.find("| ceiling\\_fma | - | GFLOP/s | 100.0 (a worker at 51%, PU 1) |"), std::string::npos)
      << md.substr(md.find("## Measured ceilings"), 2000);
  EXPECT_NE(md.find("the ceiling of a slowed core"), std::string::npos);
  even["flops"] = "120000";  // 120 GFLOP/s: now the best, its workers even
  const std::string fine = report_of(testing::scratch_dir("Report.FmaEven"), {slowed, even}, extra);
  EXPECT_NE(fine.find("| ceiling\\_fma | - | GFLOP/s | 120.0 |"), std::string::npos)
      << fine.substr(fine.find("## Measured ceilings"), 2000);
  EXPECT_EQ(fine.find("a worker at 51%"), std::string::npos);
  EXPECT_EQ(fine.find("the ceiling of a slowed core"), std::string::npos);
}

// A machine whose read ceilings timed both loops (since 2026-12-06d) says which loop set how many,
// where the window won, and the window / plain range; one whose rows lack the columns says nothing.
TEST(ReportCommand, ReadCeilingsSayWhichOfTheirLoopsSetThem) {
  SyntheticMachine a;
  testing::CsvFields dram = target_row(a, "ceiling_read", "", 8, 2e6, 200e6, "DRAM");  // 100 GB/s
  dram["read_plain_gbps"] = "71.4";
  dram["read_window_gbps"] = "100";
  testing::CsvFields l3 = target_row(a, "ceiling_read", "", 8, 1e4, 1e6, "L3");
  l3["read_plain_gbps"] = "100";
  l3["read_window_gbps"] = "90";
  const std::vector<std::string> extra = {"read_plain_gbps", "read_window_gbps"};
  const std::string md = report_of(testing::scratch_dir("Report.ReadLoops"), {dram, l3}, extra);
  EXPECT_NE(md.find("The window set 1 of this machine's 2 `ceiling_read` rows (DRAM at 2 threads); window / plain "
                    "0.90-1.40, median 1.15."),
            std::string::npos)
      << md.substr(md.find("## Measured ceilings"), 2000);
  EXPECT_NE(md.find("`ceiling_read` is the faster of two loops timed in turn: plain loads, and the same with the "
                    "attention kernels' 4 KB software prefetch window. The window set"),
            std::string::npos);
  // Since 2026-12-06e: two streams as well, each loop's rows counted on their own.
  dram["read_plain_gbps"] = "80";
  dram["read_window_gbps"] = "90";
  dram["read_two_streams_gbps"] = "100";
  l3["read_two_streams_gbps"] = "95";
  const std::vector<std::string> three = {"read_plain_gbps", "read_window_gbps", "read_two_streams_gbps"};
  const std::string md3 = report_of(testing::scratch_dir("Report.ReadThreeLoops"), {dram, l3}, three);
  EXPECT_NE(md3.find("`ceiling_read` is the fastest of three loops timed in turn: plain loads, the same with the "
                     "attention kernels' 4 KB software prefetch window, and the plain loads over two streams at once, "
                     "as the kernels read K and V. The window set 0 of this machine's 2 `ceiling_read` rows; window / "
                     "plain 0.90-1.12, median 1.01. The two streams set 1 of this machine's 2 `ceiling_read` rows "
                     "(DRAM at 2 threads); two streams / plain 0.95-1.25, median 1.10."),
            std::string::npos)
      << md3.substr(md3.find("## Measured ceilings"), 2000);
  const std::string older = report_of(testing::scratch_dir("Report.ReadOneLoop"),
                                      {target_row(a, "ceiling_read", "", 8, 2e6, 200e6, "DRAM")}, {});
  EXPECT_EQ(older.find("faster of two loops"), std::string::npos);
  EXPECT_EQ(older.find("loops timed in turn"), std::string::npos);
  // Since 2026-12-06g: four streams as well.
  dram["read_four_streams_gbps"] = "110";
  l3["read_four_streams_gbps"] = "90";
  std::vector<std::string> four = three;
  four.emplace_back("read_four_streams_gbps");
  const std::string md4 = report_of(testing::scratch_dir("Report.ReadFourLoops"), {dram, l3}, four);
  EXPECT_NE(md4.find("`ceiling_read` is the fastest of four loops timed in turn: plain loads, the same with the "
                     "attention kernels' 4 KB software prefetch window, the plain loads over two streams at once, as "
                     "the kernels read K and V, and the same over four streams. The window set 0 of this machine's 2 "
                     "`ceiling_read` rows; window / plain 0.90-1.12, median 1.01. The two streams set 0 of this "
                     "machine's 2 `ceiling_read` rows; two streams / plain 0.95-1.25, median 1.10. The four streams "
                     "set 1 of this machine's 2 `ceiling_read` rows (DRAM at 2 threads); four streams / plain "
                     "0.90-1.38, median 1.14."),
            std::string::npos)
      << md4.substr(md4.find("## Measured ceilings"), 2000);
}

// A run that measured the FMA ceiling at both ends (ceiling_fma, ceiling_fma_end) has the faster
// as its roof: the table's one ceiling_fma row gives it, and the text names a run whose ends lay
// more than 10% apart, or says that none did.
TEST(ReportCommand, AnFmaCeilingMeasuredAtBothEndsTakesTheFasterEnd) {
  SyntheticMachine a;
  const testing::CsvFields start = fma_row(a, "ceiling_fma", 100, "51.2");
  testing::CsvFields end = fma_row(a, "ceiling_fma_end", 150, "97");
  const std::vector<std::string> extra = {"core_slowest_pct", "core_slowest_pu"};
  const std::string md = report_of(testing::scratch_dir("Report.FmaEnds"), {start, end}, extra);
  const std::string ceilings = md.substr(md.find("## Measured ceilings"), 3000);
  EXPECT_NE(ceilings.find("| ceiling\\_fma | - | GFLOP/s | 150.0 |"), std::string::npos) << ceilings;
  EXPECT_EQ(ceilings.find("| ceiling\\_fma\\_end |"), std::string::npos) << ceilings;
  EXPECT_EQ(ceilings.find("a worker at 51%"), std::string::npos) << ceilings;  // the slowed end is not the roof
  EXPECT_NE(ceilings.find("Ends more than 10% apart (start -> end, GFLOP/s), a core slowed at one of them: `" +
                          start.at("run_id") + "` at 2 threads (100.0 -> 150.0)."),
            std::string::npos)
      << ceilings;
  end = fma_row(a, "ceiling_fma_end", 105, "97");
  const std::string near = report_of(testing::scratch_dir("Report.FmaEndsNear"), {start, end}, extra);
  EXPECT_NE(near.find("| ceiling\\_fma | - | GFLOP/s | 105.0 |"), std::string::npos)
      << near.substr(near.find("## Measured ceilings"), 3000);
  EXPECT_NE(near.find("None of its 1 (run, thread count) pair(s) measured at both ends lay more than 10% apart."),
            std::string::npos);
  EXPECT_EQ(near.find("Ends more than 10% apart"), std::string::npos);
  // A run without the end says nothing of ends.
  const std::string start_only = report_of(testing::scratch_dir("Report.FmaStartOnly"), {start}, extra);
  EXPECT_EQ(start_only.find("each run's faster end"), std::string::npos);
}

// An LLC row whose bytes at its ceiling plus one measured barrier crossing per layer would still
// miss 70% says so in its verdict, the ceilings table gives the crossing's time, and both say
// what it is; a report without a ceiling_barrier row says none of it.
TEST(ReportCommand, RowsOneBarrierPerLayerKeepsFromTheTargetAreNamed) {
  const fs::path dir = testing::scratch_dir("Report.BarrierBound");
  SyntheticMachine a;
  // 4 layers, 1 MB in 20000 ns: 50 GB/s, 50% of a 100 GB/s L3 ceiling; at the ceiling the bytes
  // take 10000 ns, and 4 crossings of 2500 ns add 10000: at best 50%, out of reach of 70%.
  testing::CsvFields llc = target_row(a, "decode_step", "fp32", 8, 20000, 1e6, "L3");
  testing::CsvFields read = target_row(a, "ceiling_read", "", 8, 1e4, 1e6, "L3");  // 100 GB/s
  testing::CsvFields barrier = target_row(a, "ceiling_barrier", "", 8, 2500, 0, "");
  testing::CsvFields slower = barrier;
  slower["run_id"] = "run-2";
  slower["ns_per_step"] = "4000";
  const std::string md = report_of(dir, {llc, read, barrier, slower}, {});
  const std::string line =
      "| 50.0% | >= 70.0% | **not met** (1 of 1 rows); 1 of 1 row out of reach with one barrier crossing per "
      "layer (there the least favourable would be at 50.0%) |";
  EXPECT_NE(md.find(line), std::string::npos) << line << "\n" << md.substr(0, 6000);
  EXPECT_NE(md.find("| ceiling\\_barrier | - | ns per crossing | 2500 (slowest run 4000, 2 runs) |"), std::string::npos)
      << md.substr(md.find("## Measured ceilings"), 2000);
  EXPECT_NE(md.find("`ceiling_barrier` is the time of one crossing"), std::string::npos);
  EXPECT_NE(md.find("one crossing of the run's `ceiling_barrier`"), std::string::npos);
  EXPECT_EQ(md.find("runs crossed the per-layer barrier more than"), std::string::npos);  // 1.6x: one placement
  // A run whose crossing is more than 2x the other's ran on another placement: said under the table.
  slower["ns_per_step"] = "6000";
  const std::string placed = report_of(testing::scratch_dir("Report.BarrierPlacements"), {llc, read, barrier, slower}, {});
  EXPECT_NE(placed.find("Its runs crossed the per-layer barrier more than 2.0x apart at 2 threads (2500 and 6000 ns)"),
            std::string::npos)
      << placed.substr(placed.find("## Measured ceilings"), 2000);
  EXPECT_EQ(placed.find("ceiling_barrier_end"), std::string::npos);  // no run measured its end
  // Crossed again at each run's end: the first run's end 2.8x from its start, so it moved while its
  // rows ran; the second's within 2x of its start.
  testing::CsvFields end_x = barrier, end_y = slower;
  end_x["benchmark"] = end_y["benchmark"] = "ceiling_barrier_end";
  end_x["ns_per_step"] = "7000";
  end_y["ns_per_step"] = "5000";
  const std::string midway =
      report_of(testing::scratch_dir("Report.BarrierMidway"), {llc, read, barrier, slower, end_x, end_y}, {});
  EXPECT_NE(midway.find("| ceiling\\_barrier\\_end | - | ns per crossing | 5000 (slowest run 7000, 2 runs) |"),
            std::string::npos)
      << midway.substr(midway.find("## Measured ceilings"), 2000);
  EXPECT_NE(midway.find("at 2 threads (2500 and 7000 ns)"), std::string::npos);
  EXPECT_NE(midway.find("Some moved while their rows ran (`ceiling_barrier` -> `ceiling_barrier_end`): `" +
                        barrier["run_id"] + "` at 2 threads (2500 -> 7000 ns)."),
            std::string::npos)
      << midway.substr(midway.find("## Measured ceilings"), 2000);
  EXPECT_EQ(midway.find("run-2` at 2 threads"), std::string::npos);
  end_x["ns_per_step"] = "3000";
  const std::string steady =
      report_of(testing::scratch_dir("Report.BarrierSteady"), {llc, read, barrier, slower, end_x, end_y}, {});
  EXPECT_NE(steady.find("None of the 2 run(s) that measured it at both ends moved"), std::string::npos)
      << steady.substr(steady.find("## Measured ceilings"), 2000);

  // The step split by what holds it: 10000 ns of bytes, 10000 of crossings, no wait column (2
  // threads: unknown), a rest of 0.
  EXPECT_NE(md.find("## Where the LLC-sized steps' time goes"), std::string::npos);
  const std::string split = "| decode\\_step fp32 2T; 4L 8q/8kv d128 ctx 4096 | 20.0 | 50.0% | 50.0% | - | 0.0% | 0.00 |";
  EXPECT_NE(md.find(split), std::string::npos) << split << "\n" << md.substr(md.find("## Where the LLC"), 2000);

  const std::string without = report_of(testing::scratch_dir("Report.NoBarrierBound"), {llc, read}, {});
  EXPECT_EQ(without.find("## Where the LLC-sized steps' time goes"), std::string::npos);
  EXPECT_EQ(without.find("barrier crossing per layer"), std::string::npos);
  EXPECT_EQ(without.find("ceiling_barrier"), std::string::npos);
}

// Rows of two runs of one machine are each split against their own run's ceilings, and the table
// then says which run each row is.
TEST(ReportCommand, StepBreakdownNamesTheRunWhereThereAreSeveral) {
  SyntheticMachine a;
  std::vector<testing::CsvFields> rows;
  for (const std::string run : {"run-x", "run-y"}) {
    for (testing::CsvFields r : {target_row(a, "decode_step", "fp32", 8, 20000, 1e6, "L3"),
                                 target_row(a, "ceiling_read", "", 8, 1e4, 1e6, "L3"),
                                 target_row(a, "ceiling_barrier", "", 8, run == "run-x" ? 2500 : 1250, 0, "")}) {
      r["run_id"] = run;
      rows.push_back(r);
    }
  }
  const std::string md = report_of(testing::scratch_dir("Report.BreakdownRuns"), rows, {});
  const std::string x = "| decode\\_step fp32 2T; 4L 8q/8kv d128 ctx 4096 | run-x | 20.0 | 50.0% | 50.0% | - | 0.0% | 0.00 |";
  const std::string y = "| decode\\_step fp32 2T; 4L 8q/8kv d128 ctx 4096 | run-y | 20.0 | 50.0% | 25.0% | - | 25.0% | 1.25 |";
  EXPECT_NE(md.find(x), std::string::npos) << x << "\n" << md.substr(md.find("## Where the LLC"), 2000);
  EXPECT_NE(md.find(y), std::string::npos) << y;
}

// A --ceiling-bracket row is judged against its own ceiling_gbps, and a bracket that moved more
// than 10% is named in the target line and the per-configuration table.
TEST(ReportCommand, MovedCeilingBracketIsFlagged) {
  const fs::path dir = testing::scratch_dir("Report.MovedCeilingBracket");
  SyntheticMachine a;
  const std::vector<testing::CsvFields> rows = {bracketed_prefill(a, "120", "96"),
                                                target_row(a, "ceiling_copy", "", 8, 1e6, 50e6, "DRAM", true)};
  testing::write_text(dir / "in.csv", testing::to_csv(rows));
  ASSERT_EQ(testing::run_command(report_main, {"report", (dir / "in.csv").string(), "--out", (dir / "out").string()}), 0);
  const std::string md = read(dir / "out" / "report.md");
  const std::string line =
      "| Prefill: % of copy ceiling (ceiling\\_copy) | prefill\\_copy fp32 2T; 4L 8q/8kv d128 ctx 4096 (ceiling moved "
      "-20%) | 75.0% | >= 85.0% | **not met** (1 of 1 rows); 1 row's ceiling moved > 10% while measured |";
  EXPECT_NE(md.find(line), std::string::npos) << line << "\n" << md.substr(0, 4000);
  EXPECT_NE(md.find("(ceiling moved -20%) |"), md.rfind("(ceiling moved -20%) |")) << "per-configuration cell";
}

// A row whose buffer huge pages backed only in part, where the OS offered them, is named in its
// target line and beside its value; a whole share, or an OS without them, says nothing.
TEST(ReportCommand, RowsOnlyPartlyOnHugePagesAreNamed) {
  SyntheticMachine a;
  const auto report_with = [&](const std::string& name, const std::string& share, const std::string& mode,
                               const std::string& ns = "2000000") {
    testing::CsvFields prefill = bracketed_prefill(a, "100", "100");
    prefill["ns_per_step"] = ns;
    prefill["thp"] = "yes";
    prefill["thp_share"] = share;
    prefill["thp_mode"] = mode;
    return report_of(testing::scratch_dir("Report.HugePages" + name),
                     {prefill, target_row(a, "ceiling_copy", "", 8, 1e6, 50e6, "DRAM", true)}, {"thp_share"});
  };
  const std::string partly = report_with("Partly", "0.437", "madvise");
  EXPECT_NE(partly.find("ctx 4096 (43% on huge pages) |"), std::string::npos) << partly.substr(0, 4000);
  EXPECT_NE(partly.find("| met; 1 of 1 row only partly on huge pages (their time includes TLB misses) |"),
            std::string::npos)
      << partly.substr(0, 4000);
  EXPECT_NE(partly.find("(43% on huge pages) |"), partly.rfind("(43% on huge pages) |")) << "per-configuration cell";
  // Below the threshold, such a row cannot fail its line: the shortfall may be the TLB's.
  const std::string slower = report_with("Slower", "0.437", "madvise", "2500000");
  EXPECT_NE(slower.find("| 72.0% | >= 85.0% | **unsettled** (1 of 1 rows miss it, each with a buffer only partly on "
                        "huge pages); 1 of 1 row only partly on huge pages (their time includes TLB misses) |"),
            std::string::npos)
      << slower.substr(0, 4000);
  for (const auto& [name, share, mode] : {std::tuple<std::string, std::string, std::string>{"Whole", "1.000", "madvise"},
                                          {"NotOffered", "0.000", "never"}, {"Unknown", "", "always"}}) {
    const std::string md = report_with(name, share, mode);
    EXPECT_EQ(md.find("% on huge pages)"), std::string::npos) << name << "\n" << md.substr(0, 4000);
    EXPECT_EQ(md.find("only partly on huge pages (their"), std::string::npos) << name;
  }
}

// A bracketed row of 2 workers whose crossing of the per-layer barrier before and after it lies
// more than 2x apart says so beside its value; one within 2x does not.
TEST(ReportCommand, MovedBarrierBracketIsNoted) {
  SyntheticMachine a;
  const auto report_with = [&](const std::string& name, const std::string& before_ns, const std::string& after_ns) {
    testing::CsvFields prefill = bracketed_prefill(a, "100", "100");
    prefill["barrier_before_ns"] = before_ns;
    prefill["barrier_after_ns"] = after_ns;
    return report_of(testing::scratch_dir("Report." + name), {prefill}, {"barrier_before_ns", "barrier_after_ns"});
  };
  const std::string moved = report_with("MovedBarrierBracket", "92", "310");
  EXPECT_NE(moved.find("(barrier crossing moved 92.0 -> 310 ns) |"), std::string::npos)
      << moved.substr(moved.find("## Per configuration"), 2000);
  const std::string steady = report_with("SteadyBarrierBracket", "290", "310");
  EXPECT_EQ(steady.find("(barrier crossing moved"), std::string::npos);
  EXPECT_EQ(barrier_moved_note(std::nullopt, 310.0), "");
}

// A bracketed row whose workers' FMA burst fell more than 10% below the run's usual rate (here its
// ceiling_fma and the row's other burst, 100) is named in the target line and the per-configuration
// table, and a line it alone misses is unsettled.
TEST(ReportCommand, SlowedCoreIsFlaggedAndCannotFailALine) {
  const fs::path dir = testing::scratch_dir("Report.SlowedCore");
  SyntheticMachine a;
  testing::CsvFields prefill = bracketed_prefill(a, "120", "118");
  prefill["core_before_gflops"] = "100";
  prefill["core_after_gflops"] = "60";
  testing::CsvFields fma = target_row(a, "ceiling_fma", "", 8, 1000, 0, "");
  fma["flops"] = "100000";  // 100 GFLOP/s at two threads
  fma["gflops"] = "100";
  const std::string md = report_of(dir, {prefill, fma}, {"core_before_gflops", "core_after_gflops"});
  const std::string line =
      "| Prefill: % of copy ceiling (ceiling\\_copy) | prefill\\_copy fp32 2T; 4L 8q/8kv d128 ctx 4096 (core at 60% of "
      "its run's usual FMA rate) | 75.0% | >= 85.0% | **unsettled** (1 of 1 rows miss it, each with a core that ran "
      "slow); 1 of 1 row whose core ran more than 10% below its run's usual FMA rate or 25% below its FMA ceiling |";
  EXPECT_NE(md.find(line), std::string::npos) << line << "\n" << md.substr(0, 4000);
  EXPECT_NE(md.find("(core at 60% of its run's usual FMA rate) |"),
            md.rfind("(core at 60% of its run's usual FMA rate) |"))
      << "per-configuration cell";
}

// A row whose workers waited 25% or more of their time at the per-layer barriers is named in the
// target line and the per-configuration table, with the PU of the worker the others waited for;
// the verdict stays the same. Its partner, at 10%, is not named.
TEST(ReportCommand, WorkersWaitingAtBarriersAreNamedWithoutChangingTheVerdict) {
  const fs::path dir = testing::scratch_dir("Report.BarrierWait");
  SyntheticMachine a;
  testing::CsvFields grouped = target_row(a, "attention", "fp32", 32, 1300, 1e6, "L2");
  testing::CsvFields single = target_row(a, "attention", "fp32", 8, 1000, 1e6, "L2");
  grouped["barrier_wait_pct"] = "41.2";
  grouped["barrier_slowest_pu"] = "9";
  grouped["barrier_slowest_pct"] = "58.6";
  single["barrier_wait_pct"] = "10";
  single["barrier_slowest_pu"] = "1";
  single["barrier_slowest_pct"] = "90";
  const std::string md =
      report_of(dir, {single, grouped}, {"barrier_wait_pct", "barrier_slowest_pu", "barrier_slowest_pct"});
  const std::string note = "(workers waited 41% at barriers, 59% of it for PU 9)";
  const std::string line =
      "| GQA: time at G q heads per KV head / at G = 1 | attention fp32 2T, G = 4 (largest run <= 8); 4L 32q/8kv d128 "
      "ctx 4096 " + note + " | 1.30x | <= 1.10x | **not met** (1 of 1 rows) |";
  EXPECT_NE(md.find(line), std::string::npos) << line << "\n" << md.substr(0, 4000);
  EXPECT_NE(md.find(note), md.rfind(note)) << "per-configuration cell";
  EXPECT_EQ(md.find("waited 10%"), std::string::npos);
  EXPECT_EQ(md.find("for PU 1"), std::string::npos);
}

// The headline, the table people quote, carries the same notes on its percentage and names the
// file each cell's row came from.
TEST(ReportCommand, HeadlineCellsCarryTheirRowsNotesAndFile) {
  const fs::path dir = testing::scratch_dir("Report.HeadlineNotes");
  SyntheticMachine a;
  testing::CsvFields step = target_row(a, "decode_step", "fp32", 8, 1000, 1e6, "DRAM");
  step["barrier_wait_pct"] = "41.2";
  step["barrier_slowest_pu"] = "9";
  step["barrier_slowest_pct"] = "58.6";
  const testing::CsvFields ceiling = target_row(a, "ceiling_read", "", 8, 500, 1e6, "DRAM");
  const std::string md =
      report_of(dir, {step, ceiling}, {"barrier_wait_pct", "barrier_slowest_pu", "barrier_slowest_pct"});
  const auto begin = md.find("## Headline"), end = md.find("## Efficiency against targets");
  ASSERT_LT(begin, end) << md;
  const std::string headline = md.substr(begin, end - begin);
  EXPECT_NE(headline.find("| 50.0% (workers waited 41% at barriers, 59% of it for PU 9) |"), std::string::npos)
      << headline;
  EXPECT_NE(headline.find("DRAM 2T: 4L 8q/8kv d128 ctx 4096, in.csv |"), std::string::npos) << headline;
}

// Across rows of one thread count, the report says which PU they name most and whether it held
// the waiting: PU 5 holding 80-93% in 3 of 4 rows at 16 threads reads "one PU"; PU 2 named by
// every row at 4 threads but with 45% (an even split is 25%, halfway to all of it 62.5%) does not;
// waits under 5% name no one. A file without the columns gets no such section.
TEST(ReportCommand, BarrierWaitsByPuReadAcrossRows) {
  const fs::path dir = testing::scratch_dir("Report.BarrierPus");
  SyntheticMachine a;
  std::vector<testing::CsvFields> rows;
  int context = 1000;
  const auto add = [&](int threads, const std::string& pu, const std::string& share, const std::string& waited) {
    testing::CsvFields r = target_row(a, "attention", "fp32", 16, 1000, 1e6, "L3");
    r["threads"] = std::to_string(threads);
    r["context"] = std::to_string(context++);
    r["barrier_wait_pct"] = waited;
    r["barrier_slowest_pu"] = pu;
    r["barrier_slowest_pct"] = share;
    rows.push_back(r);
  };
  add(16, "5", "80.4", "70");
  add(16, "5", "92.6", "77");
  add(16, "7", "30", "20");
  add(16, "5", "88", "75");
  for (int i = 0; i < 4; ++i) add(4, "2", "45", "12");
  add(2, "1", "98", "3");
  add(2, "1", "97", "4.9");
  const std::vector<std::string> cols = {"barrier_wait_pct", "barrier_slowest_pu", "barrier_slowest_pct"};
  const std::string md = report_of(dir, rows, cols);
  ASSERT_NE(md.find("## Barrier waits by PU"), std::string::npos) << md;
  const std::string section = md.substr(md.find("## Barrier waits by PU"));
  const std::size_t two = section.find("| 2 | 2 | 0 |");
  ASSERT_NE(two, std::string::npos) << section.substr(0, 3000);
  const std::string two_line = section.substr(two, section.find('\n', two) - two);
  EXPECT_NE(two_line.find("| little waiting |"), std::string::npos) << two_line;
  EXPECT_NE(section.find("| 4 | 4 | 4 | 12% | 2 | 4 | 0 | 45% | 1 | no one PU |"), std::string::npos)
      << section.substr(0, 3000);
  EXPECT_NE(section.find("| 16 | 4 | 4 | 20-77% | 5 | 3 | 3 | 80-93% | 2 | one PU: 5 |"), std::string::npos)
      << section.substr(0, 3000);

  const fs::path older = testing::scratch_dir("Report.BarrierPusOlder");
  for (auto& r : rows) {
    r.erase("barrier_slowest_pu");
    r.erase("barrier_slowest_pct");
  }
  EXPECT_EQ(report_of(older, rows, {"barrier_wait_pct"}).find("Barrier waits by PU"), std::string::npos);
}

// A run whose LLC was measured (kvbench run --llc) says so in the Machines table, beside hwloc's.
TEST(ReportCommand, AMeasuredLlcIsNamedBesideHwlocs) {
  const fs::path dir = testing::scratch_dir("Report.MeasuredLlc");
  SyntheticMachine a;
  a.llc_bytes = 16.0 * 1024 * 1024;
  auto rows = testing::synthetic_run(a);
  for (auto& r : rows) {
    r["llc_source"] = "measured";
    r["llc_hwloc_bytes"] = "1065353216";
  }
  const std::string md = report_of(dir, rows, {"llc_source", "llc_hwloc_bytes"});
  EXPECT_NE(md.find("| LLC (PUs used) | 16 MiB (measured; hwloc 1016 MiB) |"), std::string::npos) << md.substr(0, 3000);
}

// Runs of one machine that used different LLCs (a measured knee that wanders between runs, as on
// the Emerald Rapids host): the machine takes the LLC most runs used, and the Machines table
// names every one with its number of runs.
TEST(ReportCommand, RunsThatUsedDifferentLlcsAreEachNamedAndTheMostRunsLlcIsTheMachines) {
  const fs::path dir = testing::scratch_dir("Report.LlcsOfRuns");
  SyntheticMachine m;
  m.llc_bytes = 300.0 * 1024 * 1024;
  std::vector<testing::CsvFields> rows;
  const struct { const char* run; const char* llc; const char* source; } runs[] = {
      {"vm-20261126T190000Z", "314572800", "hwloc"},
      {"vm-20261126T191000Z", "67108864", "measured"},
      {"vm-20261126T192000Z", "67108864", "measured"}};
  for (const auto& run : runs) {
    m.run_id = run.run;
    for (auto r : testing::synthetic_run(m)) {
      r["llc_bytes"] = run.llc;
      r["llc_source"] = run.source;
      r["llc_hwloc_bytes"] = "314572800";
      rows.push_back(r);
    }
  }
  std::vector<std::string> header = testing::schema_header();
  header.push_back("llc_source");
  header.push_back("llc_hwloc_bytes");
  testing::write_text(dir / "in.csv", testing::to_csv(rows, header));
  const auto machines = group_by_machine(load_results((dir / "in.csv").string()));
  ASSERT_EQ(machines.size(), 1u);
  EXPECT_EQ(machines[0].llc_bytes, 64.0 * 1024 * 1024);
  EXPECT_EQ(machines[0].llc_source, "measured");
  ASSERT_EQ(machines[0].llcs.size(), 2u);
  EXPECT_EQ(machines[0].llcs[0].run_ids.size(), 1u);
  ASSERT_EQ(testing::run_command(report_main, {"report", (dir / "in.csv").string(), "--out", (dir / "out").string()}), 0);
  const std::string md = read(dir / "out" / "report.md");
  EXPECT_NE(md.find("| LLC (PUs used) | 64 MiB (measured; hwloc 300 MiB) in 2 of 3 runs; 300 MiB in 1 of 3 runs |"),
            std::string::npos)
      << md.substr(0, 3000);
}

TEST(ReportCommand, EfficiencyTargetsSayWhenNoRowsServeThem) {
  const fs::path dir = testing::scratch_dir("Report.EfficiencyTargetsAbsent");
  SyntheticMachine a;
  std::vector<testing::CsvFields> rows;
  for (const auto& r : testing::synthetic_run(a)) {
    if (r.at("benchmark") == "ceiling_read") rows.push_back(r);
  }
  testing::write_text(dir / "ceilings.csv", testing::to_csv(rows));
  ASSERT_EQ(testing::run_command(report_main, {"report", (dir / "ceilings.csv").string(), "--out", (dir / "out").string()}), 0);
  const std::string md = read(dir / "out" / "report.md");
  EXPECT_NE(md.find("## Efficiency against targets"), std::string::npos);
  EXPECT_NE(md.find("No rows any target is computed from"), std::string::npos) << md;
}

TEST(ReportCommand, InvalidKernelsAreFlaggedAndKeptOutOfFigures) {
  const fs::path dir = testing::scratch_dir("Report.Invalid");
  auto rows = testing::synthetic_run(SyntheticMachine{});
  int flagged = 0;
  for (auto& r : rows) {
    if (r["benchmark"] == "decode_step" && r["dtype"] == "int8" && r["context"] == "64") {
      r["valid"] = "0";
      r["max_rel_err"] = "0.0125";
      ++flagged;
    }
  }
  ASSERT_GT(flagged, 0);
  testing::write_text(dir / "in.csv", testing::to_csv(rows));
  ASSERT_EQ(testing::run_command(report_main, {"report", (dir / "in.csv").string(), "--out", (dir / "out").string()}), 0);
  const std::string md = read(dir / "out" / "report.md");
  EXPECT_NE(md.find("## Rows that failed validation"), std::string::npos);
  EXPECT_NE(md.find("(INVALID)"), std::string::npos);
  EXPECT_NE(md.find("| 1.25% |"), std::string::npos) << "the failed rows' max_rel_err, as a percentage";
  // int8 at context 64 is 2*28*8*64*(128+4) = 3,784,704 bytes of KV (no other row has that
  // working set): absent from the LLC-fit data, while its neighbour at context 32 is there.
  const std::string data = read(dir / "out" / "figures" / "llc_fit_cpu0.dat");
  EXPECT_EQ(data.find("\n3784704 "), std::string::npos);
  EXPECT_NE(data.find("\n1892352 "), std::string::npos);
}

// Two guests that report the same model name on the same host name (a Zen 3 and a Zen 5 were
// both "AMD EPYC" on "vm") stay two machines, told apart by their caches, and their labels say
// how; a file without the signature column still joins its own machine.
TEST(ReportCommand, SameModelAndHostWithOtherCachesAreTwoMachines) {
  const fs::path dir = testing::scratch_dir("Report.SameName");
  SyntheticMachine zen3, zen5, zen5_old_file;
  zen3.cpu_model = zen5.cpu_model = "AMD EPYC";
  zen3.host = zen5.host = "vm";
  zen3.l2_bytes = 512 * 1024.0;
  zen5.cpu_signature = "family 26 model 2 stepping 1";
  zen5.run_id = "vm-20261124T062000Z";
  zen5_old_file = zen5;
  zen5_old_file.cpu_signature = "";
  zen5_old_file.run_id = "vm-20261124T070000Z";
  auto rows = testing::synthetic_run(zen3);
  for (const SyntheticMachine& m : {zen5, zen5_old_file}) {
    auto more = testing::synthetic_run(m);
    rows.insert(rows.end(), more.begin(), more.end());
  }
  testing::write_text(dir / "same.csv", testing::to_csv(rows));
  const auto machines = group_by_machine(load_results((dir / "same.csv").string()));
  ASSERT_EQ(machines.size(), 2u);
  EXPECT_EQ(machines[0].label, "AMD EPYC (vm) [family 25 model 1 stepping 1, L2 512 KiB]");
  EXPECT_EQ(machines[1].label, "AMD EPYC (vm) [family 26 model 2 stepping 1, L2 1024 KiB]");
  EXPECT_EQ(machines[1].run_ids.size(), 2u);
  EXPECT_EQ(machines[0].l2_bytes, 512 * 1024.0);
  EXPECT_EQ(machines[1].l2_bytes, 1024 * 1024.0);
}

// Two guests of one CPU design (same signature and L2) shown different L3 sizes: the labels go on
// to the L3, since signature and L2 alone would name both the same.
TEST(ReportCommand, SameDesignWithOtherL3IsLabelledByItsL3) {
  const fs::path dir = testing::scratch_dir("Report.SameDesign");
  SyntheticMachine small, large;
  small.cpu_model = large.cpu_model = "Intel(R) Xeon(R) Processor";
  small.cpu_signature = large.cpu_signature = "family 6 model 207 stepping 2";
  small.llc_bytes = 260 * 1024 * 1024.0;
  large.llc_bytes = 300 * 1024 * 1024.0;
  large.run_id = "vm-20261125T200000Z";
  auto rows = testing::synthetic_run(small);
  auto more = testing::synthetic_run(large);
  rows.insert(rows.end(), more.begin(), more.end());
  testing::write_text(dir / "same.csv", testing::to_csv(rows));
  const auto machines = group_by_machine(load_results((dir / "same.csv").string()));
  ASSERT_EQ(machines.size(), 2u);
  EXPECT_EQ(machines[0].label,
            "Intel(R) Xeon(R) Processor (hosta) [family 6 model 207 stepping 2, L2 1024 KiB, L3 260 MiB]");
  EXPECT_EQ(machines[1].label,
            "Intel(R) Xeon(R) Processor (hosta) [family 6 model 207 stepping 2, L2 1024 KiB, L3 300 MiB]");
}

TEST(ReportCommand, KneesLandAtTheSyntheticCacheSizes) {
  const fs::path dir = testing::scratch_dir("Report.Knees");
  const auto rows = load_results(write_multi_cpu_csv(dir).string());
  const auto machines = group_by_machine(rows);
  ASSERT_EQ(machines.size(), 2u);
  EXPECT_EQ(machines[1].llc_bytes, 96 * 1024 * 1024.0);
  // Ceilings: best read GB/s at 1 thread per level, FMA peak.
  EXPECT_NEAR(*machines[0].read_roof("DRAM", 1), 40, 2);
  EXPECT_NEAR(*machines[1].fma_peak(2), 500, 25);
  const fs::path out = dir / "report";
  ASSERT_EQ(testing::run_command(report_main, {"report", (dir / "multi.csv").string(), "--out", out.string()}), 0);
  const std::string md = read(out / "report.md");
  // fp32 decode on CPU A: L2 plateau ends at context 4 (917504 B <= 1 MiB), LLC at context 128.
  EXPECT_NE(md.find("| cpu0 | decode\\_step fp32 head\\_major qwen3-0.6b 1T | 896 KiB | 1.75 MiB |"), std::string::npos) << md;
  EXPECT_NE(md.find("| cpu0 | decode\\_step fp32 head\\_major qwen3-0.6b 1T | 28 MiB | 56 MiB |"), std::string::npos) << md;
}

TEST(ReportCommand, NeverOverwritesAndLeavesNothingOnFailure) {
  const fs::path dir = testing::scratch_dir("Report.Overwrite");
  const fs::path csv = write_multi_cpu_csv(dir);
  const fs::path out = dir / "report";
  fs::create_directories(out);
  testing::write_text(out / "keep.txt", "precious");
  EXPECT_EQ(testing::run_command(report_main, {"report", csv.string(), "--out", out.string()}), 2);
  EXPECT_EQ(read(out / "keep.txt"), "precious");
  // Bad input: nothing written at all.
  testing::write_text(dir / "bad.csv", "schema_version,run_id\n1,x\n");
  const fs::path out2 = dir / "report2";
  EXPECT_EQ(testing::run_command(report_main, {"report", (dir / "bad.csv").string(), "--out", out2.string()}), 2);
  EXPECT_FALSE(fs::exists(out2));
  EXPECT_EQ(testing::run_command(report_main, {"report", (dir / "nope.csv").string(), "--out", out2.string()}), 2);
  EXPECT_EQ(testing::run_command(report_main, {"report", csv.string()}), 2);  // --out missing
  EXPECT_EQ(testing::run_command(report_main, {"report", csv.string(), "--out", out2.string(), "--frobnicate"}), 2);
  EXPECT_FALSE(fs::exists(out2));
  // A gnuplot that fails: exit 1, no output directory, no temporary directory left.
  setenv("KVBENCH_GNUPLOT", "false", 1);
  EXPECT_EQ(testing::run_command(report_main, {"report", csv.string(), "--out", out2.string()}), 1);
  unsetenv("KVBENCH_GNUPLOT");
  EXPECT_FALSE(fs::exists(out2));
  for (const auto& e : fs::directory_iterator(dir)) EXPECT_EQ(e.path().filename().string().find(".tmp-"), std::string::npos) << e.path();
  // --force replaces.
  EXPECT_EQ(testing::run_command(report_main, {"report", csv.string(), "--out", out.string(), "--force"}), 0);
  EXPECT_FALSE(fs::exists(out / "keep.txt"));
  EXPECT_TRUE(fs::exists(out / "report.md"));
}

// A host without gnuplot (the lent EMR host has no package manager) still gets its report: every
// figure's script and data, no images, and the report and stderr say the figures were not drawn.
TEST(ReportCommand, WithoutGnuplotTheReportKeepsScriptsAndSaysFiguresWereNotDrawn) {
  const fs::path dir = testing::scratch_dir("Report.NoGnuplot");
  const fs::path csv = write_multi_cpu_csv(dir);
  const fs::path out = dir / "report";
  setenv("KVBENCH_GNUPLOT", (dir / "no-such-gnuplot").c_str(), 1);
  ::testing::internal::CaptureStderr();
  const int status = testing::run_command(report_main, {"report", csv.string(), "--out", out.string()});
  const std::string err = ::testing::internal::GetCapturedStderr();
  unsetenv("KVBENCH_GNUPLOT");
  ASSERT_EQ(status, 0) << err;
  EXPECT_NE(err.find("not drawn"), std::string::npos) << err;
  const std::string md = read(out / "report.md");
  EXPECT_NE(md.find("**Not drawn:** cannot run gnuplot"), std::string::npos);
  EXPECT_EQ(md.find(".png)"), std::string::npos);  // no image is embedded
  int scripts = 0;
  for (const auto& e : fs::directory_iterator(out / "figures")) {
    const std::string ext = e.path().extension().string();
    EXPECT_TRUE(ext == ".gp" || ext == ".dat") << e.path();
    if (ext == ".gp") {
      ++scripts;
      EXPECT_TRUE(fs::exists(fs::path(e.path()).replace_extension(".dat"))) << e.path();
      EXPECT_NE(md.find("(figures/" + e.path().stem().string() + ".gp)"), std::string::npos) << e.path();
    }
  }
  EXPECT_GT(scripts, 1);
}

}  // namespace
}  // namespace kvb
