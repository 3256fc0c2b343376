// The committed reference reports regenerate from the CSVs beside them. Each results/<folder>/
// README.md names the `kvbench report ... --out DIR` command that wrote DIR; run again by the
// kvbench under test, it must give DIR's report.md and targets.csv byte for byte. A report the
// analysis has changed since it was written fails here: a reader who reruns the README's command
// would get other text, verdicts or numbers than the ones committed.
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <filesystem>
#include <ostream>
#include <sstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "tests/cli/end_to_end.h"

namespace {
namespace fs = std::filesystem;

using kvb_test::kKvbench;
using kvb_test::kSourceDir;

struct ReferenceReport {
  std::string folder;  // under results/
  std::string inputs;  // the command's arguments but --out and --force (shell globs kept)
  std::string out;     // its --out, relative to the source tree
};

// Test names and failures show the folder (gtest would print the struct's bytes).
void PrintTo(const ReferenceReport& r, std::ostream* os) { *os << "results/" << r.folder; }

// The first `kvbench report ...` command with an --out in `readme`, if any.
bool parse_report_command(const std::string& readme, ReferenceReport* r) {
  const std::string tag = "`kvbench report ";
  for (std::size_t at = readme.find(tag); at != std::string::npos; at = readme.find(tag, at + 1)) {
    const std::size_t end = readme.find('`', at + 1);
    if (end == std::string::npos) return false;
    std::istringstream words(readme.substr(at + tag.size(), end - at - tag.size()));
    std::string word, inputs, out;
    while (words >> word) {
      if (word == "--out") {
        words >> out;
      } else if (word != "--force") {
        inputs += (inputs.empty() ? "" : " ") + word;
      }
    }
    if (!out.empty() && !inputs.empty()) {
      r->inputs = inputs;
      r->out = out;
      return true;
    }
  }
  return false;
}

std::vector<ReferenceReport> reference_reports() {
  std::vector<ReferenceReport> found;
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(fs::path(kSourceDir) / "results", ec)) {
    ReferenceReport r;
    r.folder = e.path().filename().string();
    if (e.is_directory() && parse_report_command(kvb_test::slurp(e.path() / "README.md"), &r)) found.push_back(r);
  }
  std::sort(found.begin(), found.end(), [](const auto& a, const auto& b) { return a.folder < b.folder; });
  return found;
}

// "" if equal, else the first line that differs in each.
std::string first_difference(const std::string& got, const std::string& committed) {
  if (got == committed) return "";
  std::istringstream a(got), b(committed);
  std::string la, lb;
  for (int line = 1;; ++line) {
    const bool more_a = static_cast<bool>(std::getline(a, la));
    const bool more_b = static_cast<bool>(std::getline(b, lb));
    if (!more_a && !more_b) return "they differ in their final newline";
    if (la != lb || more_a != more_b)
      return "line " + std::to_string(line) + ": regenerated \"" + (more_a ? la : "<end>") + "\", committed \"" +
             (more_b ? lb : "<end>") + "\"";
  }
}

class ReferenceReportTest : public ::testing::TestWithParam<ReferenceReport> {};

TEST_P(ReferenceReportTest, RegeneratesFromItsCsvs) {
  const ReferenceReport& r = GetParam();
  const fs::path out = fs::temp_directory_path() / ("kvb_ref_" + std::to_string(::getpid()) + "_" + r.folder);
  fs::remove_all(out);
  const fs::path log = out.string() + ".log";
  // From the source tree, as the README's command runs: the report names its CSVs as given.
  const std::string cmd = "cd '" + kSourceDir + "' && '" + kKvbench + "' report " + r.inputs + " --out '" +
                          out.string() + "' >'" + log.string() + "' 2>&1";
  const int raw = std::system(cmd.c_str());
  ASSERT_TRUE(WIFEXITED(raw) && WEXITSTATUS(raw) == 0) << cmd << "\n" << kvb_test::slurp(log);
  for (const char* file : {"report.md", "targets.csv"}) {
    const fs::path committed = fs::path(kSourceDir) / r.out / file;
    ASSERT_TRUE(fs::exists(committed)) << committed;
    EXPECT_EQ(first_difference(kvb_test::slurp(out / file), kvb_test::slurp(committed)), "")
        << committed << " is stale: regenerate it with `kvbench report " << r.inputs << " --out " << r.out
        << " --force` from the source tree";
  }
  if (!HasFailure()) {
    fs::remove_all(out);
    fs::remove(log);
  }
}

INSTANTIATE_TEST_SUITE_P(Results, ReferenceReportTest, ::testing::ValuesIn(reference_reports()),
                         [](const ::testing::TestParamInfo<ReferenceReport>& info) {
                           std::string name = info.param.folder;
                           std::replace_if(name.begin(), name.end(), [](char c) { return !std::isalnum(c); }, '_');
                           return name;
                         });

// A tree whose results were left behind (results/device-slim.sh, for a lent machine) has none.
GTEST_ALLOW_UNINSTANTIATED_PARAMETERIZED_TEST(ReferenceReportTest);

// The list above is read from the tree: it must hold the two CPUs and the cross-CPU
// report, or the test above would pass by finding nothing.
TEST(ReferenceReports, TheReferenceCpusAndTheCrossCpuReportAreFound) {
  if (!fs::exists(fs::path(kSourceDir) / "results" / "cross-cpu" / "README.md"))
    GTEST_SKIP() << "no results/ folders in " << kSourceDir << " (a slimmed copy of the tree)";
  std::vector<std::string> folders;
  for (const ReferenceReport& r : reference_reports()) folders.push_back(r.folder);
  for (const char* folder : {"xeon-emr-16c-kvm", "epyc-zen5-2c-kvm-508m", "cross-cpu"})
    EXPECT_NE(std::find(folders.begin(), folders.end(), folder), folders.end()) << folder;
}

TEST(ReferenceReports, TheReadmesCommandIsParsedWithoutOutAndForce) {
  ReferenceReport r;
  ASSERT_TRUE(parse_report_command("see `kvbench report` below; `kvbench report a/*.csv b/*.csv --out a/report --force`",
                                   &r));
  EXPECT_EQ(r.inputs, "a/*.csv b/*.csv");
  EXPECT_EQ(r.out, "a/report");
  EXPECT_FALSE(parse_report_command("`kvbench report a.csv` (no --out)", &r));
  EXPECT_EQ(first_difference("a\nb\n", "a\nc\n"), "line 2: regenerated \"b\", committed \"c\"");
  EXPECT_EQ(first_difference("a\n", "a\nb\n"), "line 2: regenerated \"<end>\", committed \"b\"");
  EXPECT_EQ(first_difference("a\n", "a\n"), "");
}

}  // namespace
