#include "analysis/result_comparison.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <random>
#include <sstream>

#include "analysis/barrier_wait.h"
#include "analysis/ceiling_change.h"
#include "analysis/compare_command.h"
#include "analysis/input_error.h"
#include "tests/analysis/synthetic_results.h"
#include "tests/analysis/test_support.h"

namespace kvb {
namespace {

using testing::CsvFields;
using testing::SyntheticMachine;

std::vector<double> normal_times(double mean, double relative_sd, int n, unsigned seed) {
  std::mt19937 rng(seed);
  std::normal_distribution<double> d(mean, mean * relative_sd);
  std::vector<double> v;
  for (int i = 0; i < n; ++i) v.push_back(d(rng));
  return v;
}

std::vector<ResultRow> rows_from(const std::string& name, const std::vector<CsvFields>& fields) {
  const auto path = testing::scratch_dir("Compare." + name) / "in.csv";
  testing::write_text(path, testing::to_csv(fields));
  return load_results(path.string());
}

TEST(CompareResults, FlagsATenPercentSlowdownWithTenRepetitions) {
  const SyntheticMachine m;
  const auto base = rows_from("SlowBase", testing::repetition_rows(m, normal_times(1e6, 0.01, 10, 1)));
  const auto next = rows_from("SlowNew", testing::repetition_rows(m, normal_times(1.1e6, 0.01, 10, 2)));
  const Comparison c = compare_results(base, next, {});
  ASSERT_EQ(c.rows.size(), 1u);
  const auto& r = c.rows[0];
  EXPECT_EQ(r.verdict, Verdict::kSlower);
  EXPECT_TRUE(r.significant);
  EXPECT_LT(r.utest->p_value, 0.001);
  EXPECT_NEAR(r.change, 0.10, 0.02);
  EXPECT_FALSE(r.few_repetitions);
  EXPECT_TRUE(c.any_significant_slowdown());
}

TEST(CompareResults, PureNoiseIsSame) {
  const SyntheticMachine m;
  for (unsigned seed = 10; seed < 30; seed += 2) {
    const auto base = rows_from("NoiseBase", testing::repetition_rows(m, normal_times(1e6, 0.02, 10, seed)));
    const auto next = rows_from("NoiseNew", testing::repetition_rows(m, normal_times(1e6, 0.02, 10, seed + 1)));
    const Comparison c = compare_results(base, next, {});
    ASSERT_EQ(c.rows.size(), 1u);
    EXPECT_EQ(c.rows[0].verdict, Verdict::kSame) << "seed " << seed;
    EXPECT_FALSE(c.any_significant_slowdown());
  }
}

TEST(CompareResults, FasterAndFewRepetitions) {
  const SyntheticMachine m;
  const auto base = rows_from("FastBase", testing::repetition_rows(m, {100, 101, 102, 103}));
  const auto next = rows_from("FastNew", testing::repetition_rows(m, {80, 81, 82, 83}));
  const Comparison c = compare_results(base, next, {});
  ASSERT_EQ(c.rows.size(), 1u);
  EXPECT_TRUE(c.rows[0].few_repetitions);
  // 4 vs 4 fully separated: p = 0.0304 (asymptotic), significant at 0.05.
  EXPECT_EQ(c.rows[0].verdict, Verdict::kFaster);
  EXPECT_FALSE(c.any_significant_slowdown());
}

TEST(CompareResults, UnmatchedRowsAreListedAndEnvironmentDifferencesReported) {
  SyntheticMachine a, b;
  b.cpu_model = "Synthetic CPU B";
  auto base_fields = testing::repetition_rows(a, {100, 101, 102}, "fp32", 1024);
  auto extra = testing::repetition_rows(a, {50, 51, 52}, "bf16", 1024);
  base_fields.insert(base_fields.end(), extra.begin(), extra.end());
  auto new_fields = testing::repetition_rows(b, {100, 101, 102}, "fp32", 1024);
  auto other = testing::repetition_rows(b, {10, 11, 12}, "int8", 512);
  new_fields.insert(new_fields.end(), other.begin(), other.end());
  const auto base = rows_from("UnmatchedBase", base_fields);
  const auto next = rows_from("UnmatchedNew", new_fields);
  const Comparison c = compare_results(base, next, {});
  EXPECT_EQ(c.rows.size(), 1u);
  ASSERT_EQ(c.only_in_base.size(), 1u);
  EXPECT_EQ(c.only_in_base[0]->str(Col::dtype), "bf16");
  ASSERT_EQ(c.only_in_new.size(), 1u);
  EXPECT_EQ(c.only_in_new[0]->str(Col::dtype), "int8");
  EXPECT_TRUE(c.cpu_differs);
  ASSERT_EQ(c.environment_differences.size(), 1u);
  EXPECT_NE(c.environment_differences[0].find("Synthetic CPU B"), std::string::npos);
}

// Guests can name different CPUs alike ("AMD EPYC" for a Zen 3 and a Zen 5): the signature or
// the cache sizes still make it a cross-CPU comparison. A file from before the signature column
// (empty) is not a difference by itself.
TEST(CompareResults, SameModelNameButOtherSignatureOrCachesIsAnotherCpu) {
  SyntheticMachine a, b;
  b.cpu_signature = "family 26 model 2 stepping 1";
  const auto base = rows_from("SignatureBase", testing::repetition_rows(a, {100, 101, 102}));
  const auto next = rows_from("SignatureNew", testing::repetition_rows(b, {100, 101, 102}));
  Comparison c = compare_results(base, next, {});
  EXPECT_TRUE(c.cpu_differs);
  ASSERT_EQ(c.environment_differences.size(), 1u);
  EXPECT_NE(c.environment_differences[0].find("family 26 model 2"), std::string::npos);

  SyntheticMachine old_file = a, bigger_l2 = a;
  old_file.cpu_signature = "";
  bigger_l2.cpu_signature = "";
  bigger_l2.l2_bytes = 2 * a.l2_bytes;
  const auto old_rows = rows_from("SignatureOld", testing::repetition_rows(old_file, {100, 101, 102}));
  EXPECT_FALSE(compare_results(old_rows, base, {}).cpu_differs);
  c = compare_results(old_rows, rows_from("SignatureL2", testing::repetition_rows(bigger_l2, {100, 101, 102})), {});
  EXPECT_TRUE(c.cpu_differs);
  ASSERT_EQ(c.environment_differences.size(), 1u);
  EXPECT_EQ(c.environment_differences[0].rfind("l2_bytes", 0), 0u);

  // A run in which hwloc saw no L3 leaves l3_bytes empty: not another CPU.
  auto no_l3 = testing::repetition_rows(a, {100, 101, 102});
  for (auto& r : no_l3) r["l3_bytes"] = "";
  EXPECT_FALSE(compare_results(base, rows_from("SignatureNoL3", no_l3), {}).cpu_differs);
}

// The Emerald Rapids host's afternoon runs: `--llc auto` measured 64 MiB in one and kept hwloc's
// 300 MiB in the next. Same CPU, so no cross-CPU comparison, but the warning says why the
// context = auto rows do not match; files from before llc_source read as hwloc.
TEST(CompareResults, ALlcSizedDifferentlyOnTheSameCpuIsReported) {
  auto header = testing::schema_header();
  header.push_back("llc_source");
  const auto run = [&](const std::string& name, const char* llc, const char* source) {
    auto fields = testing::repetition_rows(SyntheticMachine{}, {100, 101, 102});
    for (auto& f : fields) {
      f["llc_bytes"] = llc;
      f["llc_source"] = source;
    }
    const auto path = testing::scratch_dir("Compare.Llc" + name) / "in.csv";
    testing::write_text(path, testing::to_csv(fields, header));
    return load_results(path.string());
  };
  const auto measured = run("Measured", "67108864", "measured");
  const auto kept = run("Kept", "314572800", "hwloc");
  const auto old_file = run("Old", "314572800", "");
  Comparison c = compare_results(measured, kept, {});
  EXPECT_FALSE(c.cpu_differs);
  ASSERT_EQ(c.environment_differences.size(), 1u);
  const std::string& d = c.environment_differences[0];
  EXPECT_EQ(d.rfind("llc_bytes at 1 threads", 0), 0u) << d;
  EXPECT_NE(d.find("'67108864 (measured)'"), std::string::npos) << d;
  EXPECT_NE(d.find("'314572800 (hwloc)'"), std::string::npos) << d;
  EXPECT_TRUE(compare_results(kept, old_file, {}).environment_differences.empty());
  EXPECT_TRUE(compare_results(measured, measured, {}).environment_differences.empty());
}

TEST(CompareResults, MatchThreadsMaxComparesEachSideAtItsLargestThreadCount) {
  SyntheticMachine a, b;
  b.cpu_model = "Synthetic CPU B";
  auto base_fields = testing::repetition_rows(a, {200, 201, 202}, "fp32", 1024, 1);
  auto more = testing::repetition_rows(a, {100, 101, 102}, "fp32", 1024, 2);
  base_fields.insert(base_fields.end(), more.begin(), more.end());
  const auto new_fields = testing::repetition_rows(b, {50, 51, 52}, "fp32", 1024, 4);
  const auto base = rows_from("ThreadsBase", base_fields);
  const auto next = rows_from("ThreadsNew", new_fields);
  EXPECT_TRUE(compare_results(base, next, {}).rows.empty());
  CompareOptions o;
  o.match_threads = MatchThreads::kMax;
  const Comparison c = compare_results(base, next, o);
  ASSERT_EQ(c.rows.size(), 1u);
  EXPECT_EQ(c.rows[0].base_example->str(Col::threads), "2");
  EXPECT_EQ(c.rows[0].new_example->str(Col::threads), "4");
  EXPECT_DOUBLE_EQ(c.rows[0].time_ratio, 51.0 / 101.0);
  EXPECT_NEAR(*c.rows[0].new_gbps / *c.rows[0].base_gbps, 101.0 / 51.0, 1e-9);
}

// A/B rounds on disk, as `kvbench ab` leaves them: round i's arms in base-i.csv and new-i.csv.
struct RoundFiles {
  std::vector<std::filesystem::path> base_files, new_files;
  std::vector<std::vector<ResultRow>> base, next;  // each run's rows, read back

  // The first n runs of an arm, comma-separated, as `kvbench compare` takes rounds.
  static std::string list(const std::vector<std::filesystem::path>& files, std::size_t n) {
    std::string out;
    for (std::size_t i = 0; i < n; ++i) out += (i ? "," : "") + files[i].string();
    return out;
  }
  std::string base_list() const { return list(base_files, base_files.size()); }
  std::string new_list() const { return list(new_files, new_files.size()); }
};

RoundFiles write_rounds(const std::filesystem::path& dir, const std::vector<std::vector<CsvFields>>& base_runs,
                        const std::vector<std::vector<CsvFields>>& new_runs,
                        const std::vector<std::string>& header = testing::schema_header()) {
  RoundFiles out;
  const auto write = [&](const std::vector<std::vector<CsvFields>>& runs, const std::string& arm,
                         std::vector<std::filesystem::path>& files, std::vector<std::vector<ResultRow>>& rows) {
    for (std::size_t i = 0; i < runs.size(); ++i) {
      files.push_back(dir / (arm + "-" + std::to_string(i) + ".csv"));
      testing::write_text(files.back(), testing::to_csv(runs[i], header));
      rows.push_back(load_results(files.back().string()));
    }
  };
  write(base_runs, "base", out.base_files, out.base);
  write(new_runs, "new", out.new_files, out.next);
  return out;
}

// Rounds: a machine whose speed drifts from round to round by far more than the change. Each
// round's base and new runs share its state; new is 8% slower in every round. Pooled, the drift
// hides the change; paired by round, it shows.
RoundFiles drifting_rounds(const std::string& name, double slowdown, int rounds) {
  const SyntheticMachine m;
  const double drift[] = {1.0, 1.3, 0.8, 1.15, 0.9, 1.25};
  std::vector<std::vector<CsvFields>> base, next;
  for (int i = 0; i < rounds; ++i) {
    const double state = 1e6 * drift[i % 6];
    base.push_back(testing::repetition_rows(m, normal_times(state, 0.01, 3, 100 + 2 * i)));
    next.push_back(testing::repetition_rows(m, normal_times(state * slowdown, 0.01, 3, 101 + 2 * i)));
  }
  return write_rounds(testing::scratch_dir("CompareRounds." + name), base, next);
}

TEST(CompareRounds, PairingByRoundShowsAChangeThatDriftHides) {
  const RoundFiles d = drifting_rounds("Drift", 1.08, 5);
  std::vector<ResultRow> pooled_base, pooled_new;
  for (const auto& f : d.base) pooled_base.insert(pooled_base.end(), f.begin(), f.end());
  for (const auto& f : d.next) pooled_new.insert(pooled_new.end(), f.begin(), f.end());
  const Comparison pooled = compare_results(pooled_base, pooled_new, {});
  ASSERT_EQ(pooled.rows.size(), 1u);
  EXPECT_FALSE(pooled.rows[0].significant);
  const Comparison c = compare_rounds(d.base, d.next, {});
  ASSERT_EQ(c.rows.size(), 1u);
  const auto& r = c.rows[0];
  ASSERT_EQ(r.round_ratios.size(), 5u);
  EXPECT_EQ(c.rounds, 5u);
  for (double x : r.round_ratios) EXPECT_NEAR(x, 1.08, 0.04);
  EXPECT_NEAR(r.time_ratio, 1.08, 0.03);
  ASSERT_TRUE(r.paired_p.has_value());
  EXPECT_LT(*r.paired_p, 0.001);
  EXPECT_EQ(r.verdict, Verdict::kSlower);
  EXPECT_TRUE(c.any_significant_slowdown());
  EXPECT_EQ(r.base_n, 15u);  // the pooled repetitions are still counted
}

TEST(CompareRounds, UnchangedCodeUnderDriftIsSame) {
  const RoundFiles d = drifting_rounds("Steady", 1.0, 5);
  const Comparison c = compare_rounds(d.base, d.next, {});
  ASSERT_EQ(c.rows.size(), 1u);
  EXPECT_EQ(c.rows[0].verdict, Verdict::kSame);
  EXPECT_FALSE(c.any_significant_slowdown());
}

TEST(CompareRounds, UnequalRunCountsArePooledNotPaired) {
  RoundFiles d = drifting_rounds("Unequal", 1.08, 3);
  d.next.pop_back();
  const Comparison c = compare_rounds(d.base, d.next, {});
  ASSERT_EQ(c.rows.size(), 1u);
  EXPECT_EQ(c.rounds, 0u);
  EXPECT_TRUE(c.rows[0].round_ratios.empty());
  EXPECT_FALSE(c.rows[0].paired_p.has_value());
  EXPECT_TRUE(c.rows[0].utest.has_value());
}

// Many configurations, no change: an A/B of one source in two builds on a noisy host. Each arm's
// run in a round is off by its own factor (about 7%, so a round's ratio by about 10%); 24
// configurations over 8 rounds, repeated for 20 seeds. `slowdown` multiplies the new arm's time of
// configuration 0 only.
RoundFiles many_configurations(const std::string& name, unsigned seed, double slowdown = 1.0) {
  constexpr int kRounds = 8, kConfigurations = 24;
  const SyntheticMachine m;
  std::mt19937 rng(seed);
  std::normal_distribution<double> run_noise(0.0, 0.07);
  std::vector<std::vector<CsvFields>> base_runs, new_runs;
  for (int i = 0; i < kRounds; ++i) {
    std::vector<CsvFields> base, next;
    for (int k = 0; k < kConfigurations; ++k) {
      const double state = 1e6 * (1 + 0.3 * (i % 3));
      const double b = state * std::exp(run_noise(rng)), n = state * std::exp(run_noise(rng)) * (k == 0 ? slowdown : 1);
      for (auto& f : testing::repetition_rows(m, normal_times(b, 0.01, 3, seed * 1000 + i * 50 + 2 * k), "fp32", 64 + k))
        base.push_back(f);
      for (auto& f : testing::repetition_rows(m, normal_times(n, 0.01, 3, seed * 1000 + i * 50 + 2 * k + 1), "fp32", 64 + k))
        next.push_back(f);
    }
    base_runs.push_back(std::move(base));
    new_runs.push_back(std::move(next));
  }
  return write_rounds(testing::scratch_dir("CompareRounds.Many" + name + std::to_string(seed)), base_runs, new_runs);
}

// Judged one by one, most of the 20 identical-build A/Bs flag some configuration (about 1 - 0.95^24
// of them); with Holm's adjustment, about alpha of them do.
TEST(CompareRounds, HolmKeepsIdenticalBuildsFromFlaggingAnyOfManyConfigurations) {
  int flagged_alone = 0, flagged_holm = 0;
  CompareOptions alone;
  alone.p_adjust = PAdjust::kNone;
  for (unsigned seed = 1; seed <= 20; ++seed) {
    const RoundFiles d = many_configurations("Null", seed);
    const Comparison holm = compare_rounds(d.base, d.next, {});
    ASSERT_EQ(holm.rows.size(), 24u);
    const auto flags = [](const Comparison& c) {
      return std::any_of(c.rows.begin(), c.rows.end(), [](const ComparedConfig& r) { return r.verdict != Verdict::kSame; });
    };
    flagged_holm += flags(holm);
    flagged_alone += flags(compare_rounds(d.base, d.next, alone));
    for (const auto& r : holm.rows) EXPECT_GE(*r.p_adjusted, *r.p_value());
  }
  EXPECT_GE(flagged_alone, 8) << flagged_holm;
  EXPECT_LE(flagged_holm, 3) << flagged_alone;
}

// A 30% slowdown of one configuration among the 24 still reads slower after the adjustment.
TEST(CompareRounds, HolmStillFlagsARealSlowdown) {
  const RoundFiles d = many_configurations("Slow", 7, 1.3);
  const Comparison c = compare_rounds(d.base, d.next, {});
  ASSERT_EQ(c.rows.size(), 24u);
  EXPECT_EQ(c.rows[0].base_example->str(Col::context), "64");  // sorted by change: the slowest first
  EXPECT_EQ(c.rows[0].verdict, Verdict::kSlower);
  EXPECT_LT(*c.rows[0].p_adjusted, 0.05);
  EXPECT_TRUE(c.any_significant_slowdown());
  for (std::size_t i = 1; i < c.rows.size(); ++i) EXPECT_EQ(c.rows[i].verdict, Verdict::kSame) << c.rows[i].key;
}

// ---- the command: exit statuses, output files, bad input ----

struct CompareFiles {
  std::filesystem::path dir, base, slow, noise, other_cpu;
};

CompareFiles write_files(const std::string& name) {
  CompareFiles f;
  f.dir = testing::scratch_dir("CompareCommand." + name);
  SyntheticMachine m, b;
  b.cpu_model = "Synthetic CPU B";
  f.base = f.dir / "base.csv";
  f.slow = f.dir / "slow.csv";
  f.noise = f.dir / "noise.csv";
  f.other_cpu = f.dir / "other_cpu.csv";
  testing::write_text(f.base, testing::to_csv(testing::repetition_rows(m, normal_times(1e6, 0.01, 10, 3))));
  testing::write_text(f.slow, testing::to_csv(testing::repetition_rows(m, normal_times(1.1e6, 0.01, 10, 4))));
  testing::write_text(f.noise, testing::to_csv(testing::repetition_rows(m, normal_times(1e6, 0.01, 10, 5))));
  testing::write_text(f.other_cpu, testing::to_csv(testing::repetition_rows(b, normal_times(1e6, 0.01, 10, 6))));
  return f;
}

std::string read(const std::filesystem::path& p) {
  std::ifstream in(p);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

// `kvbench compare base next --format md --out out [extra...]`: its exit status and the table.
struct MdComparison {
  int exit_status;
  std::string text;
};
MdComparison compare_to_md(const std::filesystem::path& base, const std::filesystem::path& next,
                           const std::filesystem::path& out, std::vector<std::string> extra = {}) {
  std::vector<std::string> args = {"compare", base.string(), next.string(), "--format", "md", "--out", out.string()};
  args.insert(args.end(), extra.begin(), extra.end());
  const int status = testing::run_command(compare_main, args);
  return {status, read(out)};
}

TEST(CompareCommand, ExitStatusGatesOnSignificantSlowdown) {
  const auto f = write_files("Exit");
  EXPECT_EQ(testing::run_command(compare_main, {"compare", f.base.string(), f.slow.string()}), 1);
  EXPECT_EQ(testing::run_command(compare_main, {"compare", f.base.string(), f.noise.string()}), 0);
  EXPECT_EQ(testing::run_command(compare_main, {"compare", f.slow.string(), f.base.string()}), 0);  // faster
  // A 10% slowdown is within a 20% threshold.
  EXPECT_EQ(testing::run_command(compare_main, {"compare", f.base.string(), f.slow.string(), "--threshold", "0.2"}), 0);
}

TEST(CompareCommand, WritesCsvAndMarkdownWithoutOverwriting) {
  const auto f = write_files("Formats");
  const auto csv = f.dir / "out.csv";
  EXPECT_EQ(testing::run_command(compare_main, {"compare", f.base.string(), f.slow.string(), "--format", "csv",
                                                "--out", csv.string()}), 1);
  const std::string text = read(csv);
  EXPECT_EQ(text.rfind("benchmark,model,layout,dtype", 0), 0u) << text;
  EXPECT_NE(text.find("slower"), std::string::npos);
  EXPECT_NE(text.find(",p_value,p_holm,verdict,"), std::string::npos) << text;
  // Existing output is kept unless --force.
  EXPECT_EQ(testing::run_command(compare_main, {"compare", f.base.string(), f.noise.string(), "--format", "csv",
                                                "--out", csv.string()}), 2);
  EXPECT_EQ(read(csv), text);
  EXPECT_EQ(testing::run_command(compare_main, {"compare", f.base.string(), f.noise.string(), "--format", "md",
                                                "--out", csv.string(), "--force"}), 0);
  EXPECT_NE(read(csv).find("| benchmark |"), std::string::npos);
}

TEST(CompareCommand, CrossCpuAndStrict) {
  const auto f = write_files("CrossCpu");
  const auto md = f.dir / "cross.md";
  EXPECT_EQ(testing::run_command(compare_main, {"compare", f.base.string(), f.other_cpu.string(), "--format", "md",
                                                "--out", md.string()}), 0);
  const std::string text = read(md);
  EXPECT_NE(text.find("Environment differs"), std::string::npos);
  EXPECT_NE(text.find("gbps_ratio"), std::string::npos);
  EXPECT_NE(text.find("Cross-CPU"), std::string::npos);
  // Key columns that the table drops because they never vary are named above it.
  EXPECT_NE(text.find("Same on every matched row: "), std::string::npos);
  EXPECT_NE(text.find("threads="), std::string::npos);
  EXPECT_EQ(testing::run_command(compare_main, {"compare", f.base.string(), f.other_cpu.string(), "--strict"}), 2);
}

TEST(CompareCommand, CommaListsAreRounds) {
  const RoundFiles d = drifting_rounds("Command", 1.08, 4);
  const std::string base = d.base_list(), next = d.new_list();
  const auto md = d.base_files[0].parent_path() / "rounds.md";
  EXPECT_EQ(testing::run_command(compare_main, {"compare", base, next, "--format", "md", "--out", md.string()}), 1);
  const std::string text = read(md);
  EXPECT_NE(text.find("4 rounds"), std::string::npos) << text;
  EXPECT_NE(text.find("round_ratios"), std::string::npos) << text;
  EXPECT_NE(text.find("faster in 0 of 4 rounds"), std::string::npos) << text;
  // Three base runs against four new ones: pooled, and said so.
  const auto pooled = d.base_files[0].parent_path() / "pooled.md";
  testing::run_command(compare_main,
                       {"compare", RoundFiles::list(d.base_files, 3), next, "--format", "md", "--out", pooled.string()});
  EXPECT_NE(read(pooled).find("Pooled: 3 base and 4 new run(s)"), std::string::npos) << read(pooled);
  EXPECT_EQ(testing::run_command(compare_main, {"compare", base + ",", next}), 2);  // an empty name
}

// best_ratio: each side's fastest repetition over all its runs, new over base.
TEST(CompareResults, BestRatioIsFastestOverFastest) {
  const SyntheticMachine m;
  const auto base = rows_from("BestBase", testing::repetition_rows(m, {200, 150, 180}));
  const auto next = rows_from("BestNew", testing::repetition_rows(m, {120, 300, 130}));
  const Comparison c = compare_results(base, next, {});
  ASSERT_EQ(c.rows.size(), 1u);
  EXPECT_DOUBLE_EQ(c.rows[0].best_ratio, 120.0 / 150.0);
  EXPECT_DOUBLE_EQ(c.rows[0].time_ratio, 130.0 / 180.0);
}

// A machine that switches between a fast and a slow state (a 2-vCPU guest whose host slows it
// by turns): two arms of the same code, base caught in the slow state more often. Every round's
// median says faster, the fastest repetitions agree, and the table says so under it.
TEST(CompareCommand, NotesVerdictsWhoseFastestRepetitionsAgree) {
  const SyntheticMachine m;
  const auto times = [&](int slow, unsigned seed) {
    std::vector<double> t = normal_times(1e6, 0.005, 3, seed);
    for (int j = 0; j < slow; ++j) t[static_cast<std::size_t>(j)] *= 1.45;
    return t;
  };
  std::vector<std::vector<CsvFields>> base_runs, new_runs;
  for (int i = 0; i < 5; ++i) {
    base_runs.push_back(testing::repetition_rows(m, times(2, 10 + 2 * i)));
    new_runs.push_back(testing::repetition_rows(m, times(1, 11 + 2 * i)));
  }
  const auto dir = testing::scratch_dir("CompareCommand.BestRatio");
  const RoundFiles r = write_rounds(dir, base_runs, new_runs);
  const Comparison c = compare_rounds(r.base, r.next, {});
  ASSERT_EQ(c.rows.size(), 1u);
  EXPECT_EQ(c.rows[0].verdict, Verdict::kFaster);
  EXPECT_LT(c.rows[0].time_ratio, 0.75);
  EXPECT_NEAR(c.rows[0].best_ratio, 1.0, 0.02);
  const auto md = dir / "best.md";
  testing::run_command(compare_main, {"compare", r.base_list(), r.new_list(), "--format", "md", "--out", md.string()});
  const std::string text = read(md);
  EXPECT_NE(text.find("best_ratio"), std::string::npos) << text;
  EXPECT_NE(text.find("1 configuration(s) judged faster or slower have fastest repetitions within 5%"),
            std::string::npos)
      << text;
  // A real change moves the fastest repetitions too: no such line.
  const RoundFiles d = drifting_rounds("BestRatioReal", 1.08, 4);
  const Comparison real = compare_rounds(d.base, d.next, {});
  ASSERT_EQ(real.rows.size(), 1u);
  EXPECT_EQ(real.rows[0].verdict, Verdict::kSlower);
  EXPECT_GT(real.rows[0].best_ratio, 1.05);
  const auto real_md = dir / "real.md";
  testing::run_command(compare_main,
                       {"compare", d.base_list(), d.new_list(), "--format", "md", "--out", real_md.string()});
  const std::string real_text = read(real_md);
  EXPECT_NE(real_text.find("1 significantly slower"), std::string::npos) << real_text;
  EXPECT_EQ(real_text.find("fastest repetitions within"), std::string::npos) << real_text;
}

// A multi-threaded row whose workers waited at the barriers on one side says so beside its
// verdict: its time there is the slowest worker's.
TEST(CompareCommand, NotesBarrierWaitsOfEitherSide) {
  const SyntheticMachine m;
  const auto dir = testing::scratch_dir("CompareCommand.BarrierWaits");
  const auto rows = [&](double mean, unsigned seed, const std::string& waited) {
    auto out = testing::repetition_rows(m, normal_times(mean, 0.01, 10, seed), "fp32", 1024, 2);
    for (auto& r : out) r["barrier_wait_pct"] = waited;
    return out;
  };
  std::vector<std::string> header = testing::schema_header();
  header.push_back("barrier_wait_pct");
  const auto base = dir / "base.csv", slow = dir / "slow.csv", calm = dir / "calm.csv";
  testing::write_text(base, testing::to_csv(rows(1e6, 1, "3.6"), header));
  testing::write_text(slow, testing::to_csv(rows(1.3e6, 2, "37.8"), header));
  testing::write_text(calm, testing::to_csv(rows(1e6, 3, "12"), header));
  const auto base_rows = load_results(base.string()), slow_rows = load_results(slow.string());
  const Comparison c = compare_results(base_rows, slow_rows, {});
  ASSERT_EQ(c.rows.size(), 1u);
  ASSERT_TRUE(c.rows[0].base_wait_pct && c.rows[0].new_wait_pct);
  EXPECT_NEAR(*c.rows[0].base_wait_pct, 3.6, 1e-9);
  EXPECT_NEAR(*c.rows[0].new_wait_pct, 37.8, 1e-9);
  const auto slowed = compare_to_md(base, slow, dir / "slow.md");
  EXPECT_EQ(slowed.exit_status, 1);  // still a slowdown
  EXPECT_NE(slowed.text.find("workers waited 4% -> 38% at barriers"), std::string::npos) << slowed.text;
  EXPECT_NE(slowed.text.find("1 configuration(s) note workers that waited 25%"), std::string::npos) << slowed.text;
  // Waits under the flag on both sides are the partition's own: no note.
  const auto quiet = compare_to_md(base, calm, dir / "calm.md");
  EXPECT_EQ(quiet.text.find("waited"), std::string::npos) << quiet.text;
  EXPECT_EQ(barrier_wait_change_note(std::nullopt, std::nullopt), "");
  EXPECT_EQ(barrier_wait_change_note(std::nullopt, 30.0), "workers waited - -> 30% at barriers");
}

// Two runs of one CPU against ceilings far apart: the note gives each side's ceiling and its
// share of it; within 10%, or across CPUs (whose ceilings differ by design), no note.
TEST(CompareCommand, NotesCeilingsFarApart) {
  const SyntheticMachine m;
  const auto dir = testing::scratch_dir("CompareCommand.Ceilings");
  const auto rows = [&](double mean, unsigned seed, const std::string& ceiling, const std::string& pct) {
    auto out = testing::repetition_rows(m, normal_times(mean, 0.01, 10, seed), "fp32", 1024, 1);
    for (auto& r : out) {
      r["ceiling_gbps"] = ceiling;
      r["pct_of_ceiling"] = pct;
    }
    return out;
  };
  const auto base = dir / "base.csv", moved = dir / "moved.csv", near = dir / "near.csv";
  testing::write_text(base, testing::to_csv(rows(1e6, 1, "20", "88")));
  testing::write_text(moved, testing::to_csv(rows(1.16e6, 2, "15", "76")));
  testing::write_text(near, testing::to_csv(rows(1e6, 3, "18.5", "90")));
  const Comparison c = compare_results(load_results(base.string()), load_results(moved.string()), {});
  ASSERT_EQ(c.rows.size(), 1u);
  ASSERT_TRUE(c.rows[0].base_ceiling_gbps && c.rows[0].new_ceiling_gbps && c.rows[0].base_pct && c.rows[0].new_pct);
  EXPECT_NEAR(*c.rows[0].base_ceiling_gbps, 20, 1e-9);
  EXPECT_NEAR(*c.rows[0].new_pct, 76, 1e-9);
  const auto far = compare_to_md(base, moved, dir / "moved.md");
  EXPECT_EQ(far.exit_status, 1);  // the verdict stays the time's
  EXPECT_NE(far.text.find("ceiling 20.0 -> 15.0 GB/s, 88% -> 76% of it"), std::string::npos) << far.text;
  EXPECT_NE(far.text.find("1 configuration(s) ran against ceilings more than 10% apart"), std::string::npos) << far.text;
  const auto close = compare_to_md(base, near, dir / "near.md");
  EXPECT_EQ(close.text.find("ceiling 20"), std::string::npos) << close.text;
  const auto cross = compare_to_md(base, moved, dir / "cross.md", {"--cross-cpu"});
  EXPECT_EQ(cross.text.find("ceiling 20"), std::string::npos) << cross.text;
  EXPECT_EQ(ceiling_change_note(20.0, std::nullopt, 88.0, std::nullopt), "");
  EXPECT_EQ(ceiling_change_note(20.0, 22.0, 88.0, 80.0), "");  // exactly 1.10 apart: not beyond it
  EXPECT_EQ(ceiling_change_note(10.0, 12.5, std::nullopt, 80.4), "ceiling 10.0 -> 12.5 GB/s, - -> 80% of it");
}

// A side whose read ceilings timed the prefetch window loop too (read_window_gbps, main 81a1e69 on)
// against one held to the plain loop alone: the summary says the ceilings were measured
// differently; two sides measured alike, or without read ceilings, say nothing.
TEST(CompareCommand, NotesReadCeilingsMeasuredDifferently) {
  const SyntheticMachine m;
  const auto dir = testing::scratch_dir("CompareCommand.ReadLoops");
  const auto rows = [&](unsigned seed, const std::string& window) {
    auto out = testing::repetition_rows(m, normal_times(1e6, 0.01, 10, seed), "fp32", 1024, 1);
    CsvFields ceiling = out.front();
    ceiling["benchmark"] = "ceiling_read";
    ceiling["read_plain_gbps"] = "30";
    ceiling["read_window_gbps"] = window;
    out.push_back(ceiling);
    return out;
  };
  std::vector<std::string> header = testing::schema_header();
  header.insert(header.end(), {"read_plain_gbps", "read_window_gbps"});
  const auto plain = dir / "plain.csv", two = dir / "two.csv", two_again = dir / "two_again.csv";
  testing::write_text(plain, testing::to_csv(rows(1, ""), header));
  testing::write_text(two, testing::to_csv(rows(2, "31"), header));
  testing::write_text(two_again, testing::to_csv(rows(3, "29"), header));
  const auto differ = compare_to_md(plain, two, dir / "differ.md");
  EXPECT_NE(differ.text.find("The two sides measured their read ceilings differently: base's `ceiling_read` rows "
                             "are the plain loop alone, new's the faster of the plain loop and the kernels' "
                             "prefetch window"),
            std::string::npos)
      << differ.text;
  const auto alike = compare_to_md(two, two_again, dir / "alike.md");
  EXPECT_EQ(alike.text.find("measured their read ceilings differently"), std::string::npos) << alike.text;
  EXPECT_EQ(read_ceiling_method({load_results(plain.string()), load_results(two.string())}),
            ReadCeilingMethod::kMixed);
  EXPECT_EQ(read_ceiling_method({}), ReadCeilingMethod::kUnknown);
  EXPECT_EQ(read_ceiling_method_note(ReadCeilingMethod::kUnknown, ReadCeilingMethod::kTwoLoops), "");
  // Since 2026-12-06e rows time two streams too: a third method.
  header.push_back("read_two_streams_gbps");
  auto streams_rows = rows(4, "31");
  streams_rows.back()["read_two_streams_gbps"] = "34";
  const auto three = dir / "three.csv";
  testing::write_text(three, testing::to_csv(streams_rows, header));
  EXPECT_EQ(read_ceiling_method({load_results(three.string())}), ReadCeilingMethod::kTwoStreams);
  const auto newer = compare_to_md(two, three, dir / "newer.md");
  EXPECT_NE(newer.text.find("base's `ceiling_read` rows are the faster of the plain loop and the kernels' prefetch "
                            "window, new's the fastest of the plain loop, the kernels' prefetch window where they "
                            "prefetch, and two streams"),
            std::string::npos)
      << newer.text;
  // Since 2026-12-06g four streams as well: a fourth method.
  header.push_back("read_four_streams_gbps");
  auto four_rows = streams_rows;
  for (auto& r : four_rows) r["read_four_streams_gbps"] = "";
  four_rows.back()["read_four_streams_gbps"] = "36";
  const auto four = dir / "four.csv";
  testing::write_text(four, testing::to_csv(four_rows, header));
  EXPECT_EQ(read_ceiling_method({load_results(four.string())}), ReadCeilingMethod::kFourStreams);
  const auto newest = compare_to_md(three, four, dir / "newest.md");
  EXPECT_NE(newest.text.find("new's the fastest of the plain loop, the kernels' prefetch window where they "
                             "prefetch, and two and four streams (read_window_gbps since main 81a1e69, "
                             "read_two_streams_gbps since 2026-12-06e, read_four_streams_gbps since 2026-12-06g)"),
            std::string::npos)
      << newest.text;
}

// Two runs of one CPU where one side's core brackets caught its workers slowed (the burst after a
// row at half the one before it): the note counts each side's slowed rows among its bracketed
// ones, and the summary says what that means; rows without core brackets, or across CPUs, no note.
TEST(CompareCommand, NotesRowsWhoseCoreRanSlowed) {
  const SyntheticMachine m;
  const auto dir = testing::scratch_dir("CompareCommand.CoreSlowed");
  const auto rows = [&](double mean, unsigned seed, int slowed) {
    auto out = testing::repetition_rows(m, normal_times(mean, 0.01, 10, seed), "fp32", 1024, 1);
    for (std::size_t i = 0; i < out.size(); ++i) {
      out[i]["core_before_gflops"] = "200";
      out[i]["core_after_gflops"] = static_cast<int>(i) < slowed ? "100" : "196";
    }
    return out;
  };
  std::vector<std::string> header = testing::schema_header();
  header.insert(header.end(), {"core_before_gflops", "core_after_gflops"});
  const auto base = dir / "base.csv", slowed = dir / "slowed.csv", plain = dir / "plain.csv";
  testing::write_text(base, testing::to_csv(rows(1e6, 1, 0), header));
  testing::write_text(slowed, testing::to_csv(rows(1.2e6, 2, 4), header));
  testing::write_text(plain, testing::to_csv(testing::repetition_rows(m, normal_times(1e6, 0.01, 10, 3), "fp32", 1024, 1)));
  const Comparison c = compare_results(load_results(base.string()), load_results(slowed.string()), {});
  ASSERT_EQ(c.rows.size(), 1u);
  EXPECT_EQ(c.rows[0].base_core_bracketed, 10);
  EXPECT_EQ(c.rows[0].base_core_slowed, 0);
  EXPECT_EQ(c.rows[0].new_core_bracketed, 10);
  EXPECT_EQ(c.rows[0].new_core_slowed, 4);
  const auto md = compare_to_md(base, slowed, dir / "slowed.md");
  EXPECT_EQ(md.exit_status, 1);  // the verdict stays the time's
  EXPECT_NE(md.text.find("core slowed in 0 of 10 base rows, 4 of 10 new"), std::string::npos) << md.text;
  EXPECT_NE(md.text.find("1 configuration(s) had --ceiling-bracket rows whose workers' FMA burst ran more than 10%"),
            std::string::npos)
      << md.text;
  const auto unbracketed = compare_to_md(base, plain, dir / "plain.md");
  EXPECT_EQ(unbracketed.text.find("core slowed"), std::string::npos) << unbracketed.text;
  const auto cross = compare_to_md(base, slowed, dir / "cross.md", {"--cross-cpu"});
  EXPECT_EQ(cross.text.find("core slowed"), std::string::npos) << cross.text;
}

// Two runs of one CPU whose workers crossed the per-layer barrier at times far apart (the host
// placed the vCPUs elsewhere): the multi-threaded rows say so, with each side's crossing; the
// 1-thread rows, crossings within 2x, runs without the ceiling and cross-CPU comparisons do not.
TEST(CompareCommand, NotesBarrierCrossingsFarApart) {
  const SyntheticMachine m;
  const auto dir = testing::scratch_dir("CompareCommand.BarrierCrossings");
  const auto run = [&](double mean, unsigned seed, const std::string& crossing_ns, const std::string& end_ns = "") {
    auto out = testing::repetition_rows(m, normal_times(mean, 0.01, 10, seed), "fp32", 1024, 2);
    const auto one = testing::repetition_rows(m, normal_times(mean, 0.01, 10, seed + 100), "fp32", 1024, 1);
    out.insert(out.end(), one.begin(), one.end());
    for (const auto& [benchmark, ns] :
         {std::pair{"ceiling_barrier", crossing_ns}, std::pair{"ceiling_barrier_end", end_ns}}) {
      if (ns.empty()) continue;
      for (int threads : {1, 2}) {
        CsvFields b = testing::repetition_rows(m, {1.0}, "fp32", 1024, threads).front();
        b["benchmark"] = benchmark;
        b["ns_per_step"] = threads == 1 ? "12" : ns;
        out.push_back(b);
      }
    }
    return out;
  };
  const auto base = dir / "base.csv", moved = dir / "moved.csv", near = dir / "near.csv", bare = dir / "bare.csv";
  testing::write_text(base, testing::to_csv(run(1e6, 1, "316")));
  testing::write_text(moved, testing::to_csv(run(0.8e6, 2, "62")));
  testing::write_text(near, testing::to_csv(run(1e6, 3, "170")));
  testing::write_text(bare, testing::to_csv(run(1e6, 4, "")));
  const auto base_rows = load_results(base.string()), moved_rows = load_results(moved.string());
  const Comparison c = compare_results(base_rows, moved_rows, {});  // points into the rows
  int kernels = 0;
  for (const ComparedConfig& r : c.rows) {
    if (r.base_example->is_ceiling()) {
      EXPECT_FALSE(r.base_barrier_ns || r.new_barrier_ns) << r.key;
      continue;
    }
    ++kernels;
    if (r.base_example->str(Col::threads) == "2") {
      ASSERT_TRUE(r.base_barrier_ns && r.new_barrier_ns) << r.key;
      EXPECT_NEAR(*r.base_barrier_ns, 316, 1e-9);
      EXPECT_NEAR(*r.new_barrier_ns, 62, 1e-9);
    } else {
      EXPECT_FALSE(r.base_barrier_ns || r.new_barrier_ns) << r.key;
    }
  }
  EXPECT_EQ(kernels, 2);
  const auto far = compare_to_md(base, moved, dir / "moved.md");
  EXPECT_NE(far.text.find("barrier crossing 316 -> 62.0 ns"), std::string::npos) << far.text;
  EXPECT_NE(far.text.find("1 configuration(s) of 2 or more threads ran where one crossing"), std::string::npos)
      << far.text;
  for (const auto& [other, name] : {std::pair{near, "near"}, std::pair{bare, "bare"}}) {
    const auto quiet = compare_to_md(base, other, dir / (std::string(name) + ".md"));
    EXPECT_EQ(quiet.text.find("barrier crossing"), std::string::npos) << name << quiet.text;
  }
  const auto cross = compare_to_md(base, moved, dir / "cross.md", {"--cross-cpu"});
  EXPECT_EQ(cross.text.find("barrier crossing"), std::string::npos) << cross.text;
  // A run that started where the base did and ended elsewhere: the sides' starts agree, the run
  // moved while its rows ran; one that ended within 2x of its start did not.
  const auto midway = dir / "midway.csv", steady = dir / "steady.csv";
  testing::write_text(midway, testing::to_csv(run(1e6, 5, "316", "62")));
  testing::write_text(steady, testing::to_csv(run(1e6, 6, "316", "170")));
  const auto moved_within = compare_to_md(base, midway, dir / "midway.md");
  EXPECT_EQ(moved_within.text.find("barrier crossing 316"), std::string::npos) << moved_within.text;
  EXPECT_NE(moved_within.text.find("barrier crossing moved > 2.0x within 1 of 1 runs"), std::string::npos)
      << moved_within.text;
  EXPECT_NE(moved_within.text.find("1 configuration(s) had runs whose crossing of the per-layer barrier at their end"),
            std::string::npos)
      << moved_within.text;
  EXPECT_EQ(compare_to_md(base, steady, dir / "steady.md").text.find("moved > 2.0x"), std::string::npos);
  EXPECT_EQ(barrier_change_note(316.0, std::nullopt), "");
  EXPECT_EQ(barrier_change_note(100.0, 200.0), "");  // exactly 2 apart: not beyond it
  EXPECT_EQ(barrier_change_note(62.0, 316.0), "barrier crossing 62.0 -> 316 ns");
}

// A/B rounds: a round whose two runs crossed the barrier far apart ran its arms on different
// placements. The rows count such rounds, though the sides' medians (300 against 195 ns here)
// stay within 2x.
TEST(CompareCommand, CountsRoundsWhoseArmsRanOnDifferentPlacements) {
  const auto dir = testing::scratch_dir("CompareCommand.PlacedApartRounds");
  const auto run = [&](const std::string& run_id, double mean, unsigned seed, const std::string& crossing_ns,
                       const std::string& end_ns = "") {
    SyntheticMachine m;
    m.run_id = run_id;
    auto out = testing::repetition_rows(m, normal_times(mean, 0.01, 5, seed), "fp32", 1024, 2);
    CsvFields b = out.front();
    b["benchmark"] = "ceiling_barrier";
    b["ns_per_step"] = crossing_ns;
    out.push_back(b);
    if (!end_ns.empty()) {
      b["benchmark"] = "ceiling_barrier_end";
      b["ns_per_step"] = end_ns;
      out.push_back(b);
    }
    return out;
  };
  std::vector<std::vector<CsvFields>> base_runs, new_runs;
  // Rounds 2 and 3 ran the new arm on the other placement; round 4's base run moved there after
  // its crossing (its end reads 90) and took 1.6x its time: the round counts as placed apart.
  for (int i = 0; i < 5; ++i) {
    const bool placed_apart = i == 2 || i == 3;
    base_runs.push_back(run("b" + std::to_string(i), i < 4 ? 1e6 : 1.6e6, 10 + i, "300", i == 4 ? "90" : "310"));
    new_runs.push_back(run("n" + std::to_string(i), placed_apart ? 0.6e6 : 1e6, 20 + i, placed_apart ? "90" : "300"));
  }
  const RoundFiles r = write_rounds(dir, base_runs, new_runs);
  const std::string next = r.new_list();
  const auto md = dir / "rounds.md";
  testing::run_command(compare_main, {"compare", r.base_list(), next, "--format", "md", "--out", md.string()});
  const std::string text = read(md);
  // The rounds on one placement read about 1.00; those placed apart 0.6, 0.6 and 0.63.
  EXPECT_NE(text.find("arms' barrier crossings > 2.0x apart in 3 of 5 rounds (the others' median ratio 1.0"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("1 configuration(s) had rounds whose crossings of the per-layer barrier"), std::string::npos)
      << text;
  EXPECT_EQ(text.find("barrier crossing 300"), std::string::npos) << text;  // medians 300 and 300
  EXPECT_EQ(text.find("moved > 2.0x within"), std::string::npos) << text;  // the rounds count it
  // The new runs paired with themselves: every round on one placement, no note.
  const auto same = dir / "same.md";
  testing::run_command(compare_main, {"compare", next, next, "--format", "md", "--out", same.string()});
  EXPECT_EQ(read(same).find("rounds whose crossings"), std::string::npos) << read(same);
}

// Rounds without any ceiling rows, their rows bracketed (--ceiling-bracket): a round whose row's
// own crossings lie more than 2x apart (the host moved the vCPUs while it ran) is counted.
TEST(CompareCommand, CountsRoundsWhoseRowsCrossingsMovedWithinTheirBracket) {
  const auto dir = testing::scratch_dir("CompareCommand.RowBrackets");
  const auto run = [&](const std::string& run_id, unsigned seed, const std::string& before, const std::string& after) {
    SyntheticMachine m;
    m.run_id = run_id;
    auto out = testing::repetition_rows(m, normal_times(1e6, 0.01, 5, seed), "fp32", 1024, 2);
    for (CsvFields& row : out) {
      row["barrier_before_ns"] = before;
      row["barrier_after_ns"] = after;
    }
    return out;
  };
  auto header = testing::schema_header();
  header.insert(header.end(), {"barrier_before_ns", "barrier_after_ns"});
  std::vector<std::vector<CsvFields>> base_runs, new_runs;
  for (int i = 0; i < 3; ++i) {
    base_runs.push_back(run("b" + std::to_string(i), 10 + i, "300", "310"));
    new_runs.push_back(run("n" + std::to_string(i), 20 + i, "300", i == 1 ? "90" : "290"));
  }
  const RoundFiles r = write_rounds(dir, base_runs, new_runs, header);
  const auto md = dir / "rounds.md";
  testing::run_command(compare_main, {"compare", r.base_list(), r.new_list(), "--format", "md", "--out", md.string()});
  EXPECT_NE(read(md).find("arms' barrier crossings > 2.0x apart in 1 of 3 rounds"), std::string::npos) << read(md);
}

// A/B rounds: a round whose arms' workers waited at the barriers for different shares of the step
// had a slow worker on one arm (the EMR host at 8 threads: 11-17% against 30-33%). The rows count
// such rounds and give the median ratio of the rest.
TEST(CompareCommand, CountsRoundsWhoseArmsWaitedApart) {
  const auto dir = testing::scratch_dir("CompareCommand.WaitsApartRounds");
  const auto run = [&](const std::string& run_id, double mean, unsigned seed, const std::string& waited) {
    SyntheticMachine m;
    m.run_id = run_id;
    auto out = testing::repetition_rows(m, normal_times(mean, 0.01, 5, seed), "fp32", 1024, 2);
    for (CsvFields& row : out) row["barrier_wait_pct"] = waited;
    return out;
  };
  auto header = testing::schema_header();
  header.push_back("barrier_wait_pct");
  // Rounds 1 and 3: the new arm had a slow worker (31%, 1.4x the time). Round 4's 13% against 20%
  // is within 10% of the step's worked share (87 against 80).
  std::vector<std::vector<CsvFields>> base_runs, new_runs;
  for (int i = 0; i < 5; ++i) {
    const bool slow = i == 1 || i == 3;
    base_runs.push_back(run("b" + std::to_string(i), 1e6, 10 + i, "13"));
    new_runs.push_back(run("n" + std::to_string(i), slow ? 1.4e6 : 1e6, 20 + i, slow ? "31" : i == 4 ? "20" : "13"));
  }
  const RoundFiles r = write_rounds(dir, base_runs, new_runs, header);
  const std::string base = r.base_list();
  const auto md = dir / "rounds.md";
  testing::run_command(compare_main, {"compare", base, r.new_list(), "--format", "md", "--out", md.string()});
  const std::string text = read(md);
  EXPECT_NE(text.find("arms' barrier waits apart in 2 of 5 rounds (13% vs 31%; the others' median ratio 1.0"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("1 configuration(s) had rounds whose arms' workers worked shares of the step"),
            std::string::npos)
      << text;
  // One arm against itself: no round apart.
  const auto same = dir / "same.md";
  testing::run_command(compare_main, {"compare", base, base, "--format", "md", "--out", same.string()});
  EXPECT_EQ(read(same).find("waits apart"), std::string::npos) << read(same);
  EXPECT_TRUE(waits_apart(13, 31));
  EXPECT_FALSE(waits_apart(13, 20));
  EXPECT_FALSE(waits_apart(0, 9));   // 100 against 91: within 1.10x
  EXPECT_TRUE(waits_apart(0, 10));   // 100 against 90
  EXPECT_FALSE(waits_apart(5, 100));  // no worked share to compare
}

// Rounds whose rows carry their own ceilings: held_ratio sets each arm against the ceiling its own
// run measured. Here the new arm's machine read 20% less in rounds 1 and 2 and its rows took 1.25x
// the time, the same share of their ceiling: time ratios 1.0 and 1.25 by turns, held ratios 1.0.
TEST(CompareCommand, HoldsEachRoundsArmsToTheirOwnCeilings) {
  const auto dir = testing::scratch_dir("CompareCommand.HeldRatio");
  const auto run = [&](const std::string& run_id, bool slow_machine, unsigned seed) {
    SyntheticMachine m;
    m.run_id = run_id;
    auto out = testing::repetition_rows(m, normal_times(slow_machine ? 1.25e6 : 1e6, 0.002, 5, seed), "fp32", 1024, 1);
    for (CsvFields& row : out) {
      row["ceiling_gbps"] = slow_machine ? "40" : "50";
      row["pct_of_ceiling"] = "80";
    }
    return out;
  };
  std::vector<std::vector<CsvFields>> base_runs, new_runs;
  for (int i = 0; i < 4; ++i) {
    base_runs.push_back(run("b" + std::to_string(i), false, 10 + i));
    new_runs.push_back(run("n" + std::to_string(i), i == 1 || i == 2, 20 + i));
  }
  const RoundFiles r = write_rounds(dir, base_runs, new_runs);
  const Comparison c = compare_rounds(r.base, r.next, {});
  ASSERT_EQ(c.rows.size(), 1u);
  EXPECT_NEAR(c.rows[0].time_ratio, 1.125, 0.01);  // the median of 1.0, 1.25, 1.25, 1.0
  ASSERT_TRUE(c.rows[0].held_ratio);
  EXPECT_NEAR(*c.rows[0].held_ratio, 1.0, 1e-9);
  EXPECT_EQ(c.rows[0].round_held_ratios.size(), 4u);
  const auto md = dir / "rounds.md";
  testing::run_command(compare_main, {"compare", r.base_list(), r.new_list(), "--format", "md", "--out", md.string()});
  const std::string text = read(md);
  EXPECT_NE(text.find("| best_ratio | held_ratio | p_value |"), std::string::npos) << text;
  EXPECT_NE(text.find("held_ratio: the median over the rounds of base's pct_of_ceiling"), std::string::npos) << text;
  // Rows without ceilings: the column says "-" and no line explains it.
  std::string bare_base, bare_next;
  for (int i = 0; i < 2; ++i) {
    SyntheticMachine m;
    m.run_id = "bare" + std::to_string(i);
    const auto f = dir / ("bare-" + std::to_string(i) + ".csv");
    const auto rows = testing::repetition_rows(m, normal_times(1e6, 0.01, 5, 30 + i), "fp32", 1024, 1);
    testing::write_text(f, testing::to_csv(rows));
    (i ? bare_next : bare_base) = f.string();
  }
  const auto bare_md = dir / "bare.md";
  testing::run_command(compare_main, {"compare", bare_base + "," + bare_next, bare_next + "," + bare_base, "--format",
                                      "md", "--out", bare_md.string()});
  EXPECT_NE(read(bare_md).find("| - |"), std::string::npos) << read(bare_md);
  EXPECT_EQ(read(bare_md).find("held_ratio:"), std::string::npos) << read(bare_md);
}

// A ceiling row significantly slower sets the exit status by default (the machine got slower);
// under --gate kernels, as kvbench ab runs compare, it is shown but only kernel rows count.
TEST(CompareCommand, GateKernelsLeavesCeilingRowsOutOfTheExitStatus) {
  const SyntheticMachine m;
  const auto dir = testing::scratch_dir("CompareCommand.GateKernels");
  const auto run = [&](double ceiling_ns, unsigned seed) {
    auto out = testing::repetition_rows(m, normal_times(1e6, 0.01, 10, seed), "fp32", 1024, 2);
    for (CsvFields row : testing::repetition_rows(m, normal_times(ceiling_ns, 0.01, 10, seed + 50), "fp32", 1024, 2)) {
      row["benchmark"] = "ceiling_barrier";
      out.push_back(row);
    }
    return out;
  };
  const auto base = dir / "base.csv", slow_ceiling = dir / "slow-ceiling.csv";
  testing::write_text(base, testing::to_csv(run(300, 1)));
  testing::write_text(slow_ceiling, testing::to_csv(run(450, 2)));
  const auto all = compare_to_md(base, slow_ceiling, dir / "all.md");
  EXPECT_EQ(all.exit_status, 1) << all.text;
  EXPECT_NE(all.text.find("2 matched configuration(s): 1 significantly slower"), std::string::npos) << all.text;
  EXPECT_EQ(all.text.find("--gate kernels"), std::string::npos) << all.text;
  const auto kernels = compare_to_md(base, slow_ceiling, dir / "kernels.md", {"--gate", "kernels"});
  EXPECT_EQ(kernels.exit_status, 0) << kernels.text;
  EXPECT_NE(kernels.text.find("Exit status from kernel rows only (--gate kernels): ceiling_* rows measure the "
                              "machine, which both arms share; 1 of them significantly slower."),
            std::string::npos)
      << kernels.text;
  // A kernel row slower still fails under it.
  const auto slow_kernel = dir / "slow-kernel.csv";
  auto fields = run(300, 3);
  for (CsvFields& row : fields) {
    if (row["benchmark"] != "ceiling_barrier") row["ns_per_step"] = std::to_string(std::stod(row["ns_per_step"]) * 1.2);
  }
  testing::write_text(slow_kernel, testing::to_csv(fields));
  EXPECT_EQ(compare_to_md(base, slow_kernel, dir / "kernel.md", {"--gate", "kernels"}).exit_status, 1);
  EXPECT_EQ(testing::run_command(compare_main, {"compare", base.string(), base.string(), "--gate", "ceilings"}), 2);
}

TEST(CompareCommand, BadInputIsExitTwo) {
  const auto f = write_files("BadInput");
  testing::write_text(f.dir / "empty.csv", "");
  EXPECT_EQ(testing::run_command(compare_main, {"compare", f.base.string()}), 2);
  EXPECT_EQ(testing::run_command(compare_main, {"compare", f.base.string(), (f.dir / "missing.csv").string()}), 2);
  EXPECT_EQ(testing::run_command(compare_main, {"compare", f.base.string(), (f.dir / "empty.csv").string()}), 2);
  EXPECT_EQ(testing::run_command(compare_main, {"compare", f.base.string(), f.slow.string(), "--bogus"}), 2);
  EXPECT_EQ(testing::run_command(compare_main, {"compare", f.base.string(), f.slow.string(), "--format", "xml"}), 2);
  EXPECT_EQ(testing::run_command(compare_main, {"compare", f.base.string(), f.slow.string(), "--alpha", "x"}), 2);
  EXPECT_EQ(testing::run_command(compare_main, {"compare", f.base.string(), f.slow.string(), "--p-adjust", "bh"}), 2);
  EXPECT_EQ(testing::run_command(compare_main, {"compare", f.base.string(), f.slow.string(), "--match-threads", "min"}), 2);
}

// The command says what the adjustment held back, and exits 0 where only a single test flags.
TEST(CompareCommand, SaysWhatHolmsAdjustmentHeldBack) {
  CompareOptions alone;
  alone.p_adjust = PAdjust::kNone;
  for (unsigned seed = 1; seed <= 20; ++seed) {
    const RoundFiles d = many_configurations("Command", seed);
    const Comparison one_by_one = compare_rounds(d.base, d.next, alone);
    if (!one_by_one.any_significant_slowdown() || compare_rounds(d.base, d.next, {}).any_significant_slowdown()) continue;
    const auto md = testing::scratch_dir("CompareCommand.HeldBack") / "compare.md";
    EXPECT_EQ(testing::run_command(compare_main, {"compare", d.base_list(), d.new_list(), "--p-adjust", "none"}), 1);
    EXPECT_EQ(testing::run_command(compare_main, {"compare", d.base_list(), d.new_list(), "--format", "md", "--out",
                                                  md.string(), "--force"}), 0);
    const std::string text = read(md);
    EXPECT_NE(text.find("but not after Holm's adjustment: noise, or a change that more rounds would show"),
              std::string::npos) << text;
    EXPECT_NE(text.find("p_holm: p adjusted by Holm's method over the 24 tested configurations"), std::string::npos) << text;
    return;
  }
  FAIL() << "no seed gave a slowdown flagged by its own test alone";
}

}  // namespace
}  // namespace kvb

namespace kvb {
namespace {

std::vector<testing::CsvFields> ceiling_rows(const SyntheticMachine& m, double buffer_bytes, double ns) {
  std::vector<testing::CsvFields> out;
  for (int r = 0; r < 3; ++r) {
    auto f = testing::machine_fields(m);
    f["benchmark"] = "ceiling_read";
    f["threads"] = "1";
    f["ws_level"] = "L2";
    f["working_set_bytes"] = std::to_string(static_cast<long long>(buffer_bytes));
    f["bytes_read"] = f["working_set_bytes"];
    f["bytes_written"] = "0";
    f["flops"] = "0";
    f["ns_per_step"] = std::to_string(ns + r);
    f["aggregate"] = "none";
    f["repetition"] = std::to_string(r);
    f["valid"] = "1";
    out.push_back(f);
  }
  return out;
}

TEST(CompareResults, CeilingsOfSeveralBufferSizesPerLevelStaySeparate) {
  SyntheticMachine a, b;
  b.cpu_model = "Synthetic CPU B";
  auto base_fields = ceiling_rows(a, 256 * 1024, 1000);
  auto more = ceiling_rows(a, 512 * 1024, 2000);
  base_fields.insert(base_fields.end(), more.begin(), more.end());
  const auto base = rows_from("CeilBase", base_fields);
  const Comparison same = compare_results(base, base, {});
  ASSERT_EQ(same.rows.size(), 2u);
  for (const auto& r : same.rows) EXPECT_EQ(r.base_n, 3u);
  // Another CPU that measured the level at one (different) buffer size still matches by level.
  const auto other = rows_from("CeilOther", ceiling_rows(b, 768 * 1024, 1500));
  const auto one_size = rows_from("CeilOneSize", ceiling_rows(a, 256 * 1024, 1000));
  const Comparison cross = compare_results(one_size, other, {});
  ASSERT_EQ(cross.rows.size(), 1u);
  EXPECT_NEAR(cross.rows[0].time_ratio, 1501.0 / 1001.0, 1e-12);
}

}  // namespace
}  // namespace kvb
