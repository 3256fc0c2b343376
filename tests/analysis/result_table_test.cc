#include "analysis/result_table.h"

#include <gtest/gtest.h>

#include "analysis/input_error.h"
#include "tests/analysis/synthetic_results.h"
#include "tests/analysis/test_support.h"

namespace kvb {
namespace {

using testing::CsvFields;

std::vector<CsvFields> good_rows() {
  return testing::repetition_rows(testing::SyntheticMachine{}, {100, 101, 102});
}

// Writes `text` and expects load_results to fail with a message containing every fragment.
void expect_rejected(const std::string& name, const std::string& text, std::vector<std::string> fragments) {
  const auto path = testing::scratch_dir("ResultTable." + name) / "in.csv";
  testing::write_text(path, text);
  try {
    load_results(path.string());
    FAIL() << name << ": expected InputError";
  } catch (const InputError& e) {
    fragments.push_back(path.string());
    for (const auto& f : fragments) EXPECT_NE(std::string(e.what()).find(f), std::string::npos) << name << ": " << e.what();
  }
}

TEST(ResultTable, LoadsRowsByNameIgnoringUnknownColumns) {
  auto header = testing::schema_header();
  std::reverse(header.begin(), header.end());  // position must not matter
  header.push_back("future_column");
  auto rows = good_rows();
  rows[0]["future_column"] = "whatever";
  const auto path = testing::scratch_dir("ResultTable.Loads") / "in.csv";
  testing::write_text(path, testing::to_csv(rows, header));
  const auto loaded = load_results(path.string());
  ASSERT_EQ(loaded.size(), 3u);
  EXPECT_EQ(loaded[0].str(Col::benchmark), "decode_step");
  EXPECT_DOUBLE_EQ(*loaded[1].num(Col::ns_per_step), 101);
  EXPECT_EQ(loaded[0].line, 2u);
  EXPECT_FALSE(loaded[0].num(Col::window).has_value());  // empty = not measured
  EXPECT_TRUE(loaded[0].is_repetition());
}

TEST(ResultTable, MissingFile) { EXPECT_THROW(load_results(std::string("/nonexistent/x.csv")), InputError); }

TEST(ResultTable, EmptyFile) { expect_rejected("Empty", "", {"empty"}); }

TEST(ResultTable, HeaderOnly) { expect_rejected("HeaderOnly", testing::to_csv({}), {"no result rows"}); }

TEST(ResultTable, MissingColumn) {
  auto header = testing::schema_header();
  header.erase(std::find(header.begin(), header.end(), "ns_per_step"));
  expect_rejected("MissingColumn", testing::to_csv(good_rows(), header), {"ns_per_step", ":1"});
}

TEST(ResultTable, UnknownSchemaVersion) {
  auto rows = good_rows();
  rows[1]["schema_version"] = "2";
  expect_rejected("Version", testing::to_csv(rows), {":3", "schema_version", "unknown schema version"});
}

TEST(ResultTable, NonNumericValue) {
  auto rows = good_rows();
  rows[2]["ns_per_step"] = "12x";
  expect_rejected("NonNumeric", testing::to_csv(rows), {":4", "ns_per_step", "12x"});
  rows = good_rows();
  rows[0]["threads"] = "1.5";
  expect_rejected("NonInteger", testing::to_csv(rows), {":2", "threads", "integer"});
}

TEST(ResultTable, MalformedRow) {
  std::string text = testing::to_csv(good_rows());
  text += "1,run,only,three\n";
  expect_rejected("TooFew", text, {"line 5"});
  text = testing::to_csv(good_rows());
  const auto first_newline = text.find('\n');
  text.insert(text.find('\n', first_newline + 1), ",extra");
  expect_rejected("TooMany", text, {"line 2"});
}

TEST(ResultTable, UnknownAggregate) {
  auto rows = good_rows();
  rows[0]["aggregate"] = "p99";
  expect_rejected("Aggregate", testing::to_csv(rows), {":2", "aggregate", "p99"});
}

}  // namespace
}  // namespace kvb
