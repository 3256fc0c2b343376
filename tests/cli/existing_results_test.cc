// What a results file that a run adds to holds: the LLC its rows were sized from, and what
// --llc auto makes of it.
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>

#include <gtest/gtest.h>

#include "benchmarks/existing_results.h"

namespace kvb {
namespace {

constexpr std::int64_t kMiB = 1 << 20;
const std::string kHere = "AuthenticAMD AMD EPYC (25/1/1), 2 PUs";

RecordedLlc row(std::int64_t bytes, const std::string& source, const std::string& machine = kHere) {
  return {machine, bytes, source};
}

TEST(ExistingResults, AutoKeepsTheOneLlcAFilesRowsWereSizedFrom) {
  std::string note;
  const auto measured = llc_setting_of_file({row(16 * kMiB, "measured")}, kHere, "s.csv", &note);
  ASSERT_TRUE(measured.has_value());
  EXPECT_EQ(measured->policy, LlcPolicy::kRecorded);
  EXPECT_EQ(measured->bytes, 16 * kMiB);
  EXPECT_EQ(measured->source, "measured");
  EXPECT_EQ(measured->recorded_in, "s.csv");
  EXPECT_EQ(note, "");
  // hwloc's rows record the LLC of the PUs each run used (1 and 2 threads differ where the PUs
  // span instances): one choice, hwloc's.
  const auto hwloc = llc_setting_of_file({row(32 * kMiB, "hwloc"), row(64 * kMiB, "hwloc")}, kHere, "s.csv", &note);
  ASSERT_TRUE(hwloc.has_value());
  EXPECT_EQ(hwloc->source, "hwloc");
  EXPECT_EQ(hwloc->bytes, 0);
}

TEST(ExistingResults, AutoDecidesAfreshForSeveralSizesAnotherMachineOrNone) {
  std::string note;
  EXPECT_FALSE(llc_setting_of_file({row(16 * kMiB, "measured"), row(8 * kMiB, "measured")}, kHere, "s.csv", &note));
  EXPECT_NE(note.find("2 different LLCs"), std::string::npos) << note;
  EXPECT_NE(note.find("8388608 bytes measured"), std::string::npos) << note;
  note.clear();
  EXPECT_FALSE(llc_setting_of_file({row(16 * kMiB, "measured"), row(32 * kMiB, "hwloc")}, kHere, "s.csv", &note));
  EXPECT_NE(note.find("hwloc"), std::string::npos) << note;
  note.clear();
  EXPECT_FALSE(llc_setting_of_file({row(16 * kMiB, "measured", "GenuineIntel Xeon (6/207/2), 16 PUs")}, kHere,
                                   "s.csv", &note));
  EXPECT_FALSE(llc_setting_of_file({}, kHere, "s.csv", &note));
  EXPECT_FALSE(llc_setting_of_file({row(0, "measured")}, kHere, "s.csv", &note));
  EXPECT_EQ(note, "");
}

class RecordedLlcFile : public ::testing::Test {
 protected:
  void SetUp() override {
    path_ = std::filesystem::temp_directory_path() /
            ("kvb_recorded_llc_" + std::to_string(::getpid()) + "_" +
             ::testing::UnitTest::GetInstance()->current_test_info()->name() + ".csv");
  }
  void TearDown() override { std::filesystem::remove(path_); }
  std::filesystem::path path_;
};

// A killed run's partial last row is not read; the rows before it are. A file from before
// llc_source reads as hwloc's.
TEST_F(RecordedLlcFile, ReadsUpToAPartialLastRow) {
  std::ofstream(path_) << "cpu_vendor,cpu_model,cpu_signature,pus_total,llc_bytes,llc_source,gbps\n"
                          "AuthenticAMD,AMD EPYC,25/1/1,2,16777216,measured,1.5\n"
                          "AuthenticAMD,AMD EPYC,25/1/1,2,16777216,measured,1.6\n"
                          "AuthenticAMD,AMD EPYC,25/1/1,2,8388";
  const std::set<RecordedLlc> r = read_recorded_llc(path_.string());
  ASSERT_EQ(r.size(), 1u);
  EXPECT_EQ(r.begin()->machine, kHere);
  EXPECT_EQ(r.begin()->bytes, 16 * kMiB);
  EXPECT_EQ(r.begin()->source, "measured");

  std::ofstream(path_) << "cpu_vendor,cpu_model,pus_total,llc_bytes\nAuthenticAMD,AMD EPYC,2,33554432\n";
  const std::set<RecordedLlc> old = read_recorded_llc(path_.string());
  ASSERT_EQ(old.size(), 1u);
  EXPECT_EQ(old.begin()->source, "hwloc");

  std::ofstream(path_) << "cpu_vendor,cpu_model,pus_total\nAuthenticAMD,AMD EPYC,2\n";
  EXPECT_TRUE(read_recorded_llc(path_.string()).empty());
  EXPECT_TRUE(read_recorded_llc((path_.string() + ".missing")).empty());
}

}  // namespace
}  // namespace kvb
