#include "analysis/result_table.h"

#include <gtest/gtest.h>

#include <boost/iostreams/device/back_inserter.hpp>
#include <boost/iostreams/filter/lzma.hpp>
#include <boost/iostreams/filtering_stream.hpp>

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
void expect_rejected(const std::string& name, const std::string& text, std::vector<std::string> fragments,
                     const std::string& file_name = "in.csv") {
  const auto path = testing::scratch_dir("ResultTable." + name) / file_name;
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

// The variant axes were added to schema version 1 later: files without them (schema_header()
// is the original column set) load with the axes empty; files with them read them.
TEST(ResultTable, VariantColumnsAreOptionalAndRead) {
  const auto old_path = testing::scratch_dir("ResultTable.VariantOld") / "in.csv";
  testing::write_text(old_path, testing::to_csv(good_rows()));
  const auto old_rows = load_results(old_path.string());
  ASSERT_EQ(old_rows.size(), 3u);
  EXPECT_EQ(old_rows[0].str(Col::block_size), "");

  auto header = testing::schema_header();
  for (const char* c : {"block_size", "block_order", "seq_lens", "query_tokens"}) header.push_back(c);
  auto rows = good_rows();
  rows[0]["benchmark"] = "paged_attention";
  rows[0]["block_size"] = "16";
  rows[0]["block_order"] = "shuffled";
  rows[1]["query_tokens"] = "4";
  const auto path = testing::scratch_dir("ResultTable.VariantNew") / "in.csv";
  testing::write_text(path, testing::to_csv(rows, header));
  const auto loaded = load_results(path.string());
  ASSERT_EQ(loaded.size(), 3u);
  EXPECT_DOUBLE_EQ(*loaded[0].num(Col::block_size), 16);
  EXPECT_EQ(loaded[0].str(Col::block_order), "shuffled");
  EXPECT_DOUBLE_EQ(*loaded[1].num(Col::query_tokens), 4);
  // Rows that differ only in a variant axis are different configurations for compare.
  EXPECT_NE(join_columns(loaded[0], {std::begin(kConfigColumns), std::end(kConfigColumns)}),
            join_columns(old_rows[0], {std::begin(kConfigColumns), std::end(kConfigColumns)}));
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

// Every enumerated column refuses a value outside its documented list, naming it and the list.
TEST(ResultTable, UnknownEnumeratedValues) {
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"dtype", "fp99"}, {"layout", "row_major"}, {"cache_state", "hot"},
      {"ws_level", "LLC"}, {"valid", "2"}};
  for (const auto& [column, value] : cases) {
    auto rows = good_rows();
    rows[1][column] = value;
    expect_rejected("Enum_" + column, testing::to_csv(rows), {":3", "column '" + column + "'", "unknown value '" + value + "'"});
  }
  auto rows = good_rows();
  rows[1]["dtype"] = "fp99";
  expect_rejected("EnumList", testing::to_csv(rows), {"(fp32, fp16, bf16, int8, fp8_e4m3, fp8_e5m2, int4)"});
  // Empty stays allowed (ceiling rows have no dtype, layout or cache state).
  rows = good_rows();
  for (const char* column : {"dtype", "layout", "cache_state", "ws_level", "valid"}) rows[0][column] = "";
  const auto path = testing::scratch_dir("ResultTable.EnumEmpty") / "in.csv";
  testing::write_text(path, testing::to_csv(rows));
  EXPECT_EQ(load_results(path.string()).size(), rows.size());
}

std::string xz_compressed(const std::string& text) {
  namespace bio = boost::iostreams;
  std::string out;
  {
    bio::filtering_ostream os;
    os.push(bio::lzma_compressor());
    os.push(bio::back_inserter(out));
    os << text;
  }
  return out;
}

// Record CSVs are kept as .csv.xz: they must load row for row like the plain file, including
// files larger than the parser's read blocks (1 MiB), whose reads the decompressor must fill.
TEST(ResultTable, XzCompressedFileLoadsLikeThePlainFile) {
  std::vector<double> times;
  for (int i = 0; i < 8000; ++i) times.push_back(100 + i % 7);
  const std::string text = testing::to_csv(testing::repetition_rows(testing::SyntheticMachine{}, times));
  ASSERT_GT(text.size(), std::size_t{3} << 20);
  const auto dir = testing::scratch_dir("ResultTable.Xz");
  testing::write_text(dir / "in.csv", text);
  testing::write_text(dir / "in.csv.xz", xz_compressed(text));
  const auto plain = load_results((dir / "in.csv").string());
  const auto packed = load_results((dir / "in.csv.xz").string());
  ASSERT_EQ(packed.size(), plain.size());
  for (std::size_t i = 0; i < plain.size(); ++i) {
    ASSERT_EQ(packed[i].line, plain[i].line);
    ASSERT_EQ(packed[i].text, plain[i].text) << "row " << i;
  }
  EXPECT_EQ(packed.back().file, (dir / "in.csv.xz").string());
}

TEST(ResultTable, XzThatDoesNotDecompressIsRejected) {
  const std::string packed = xz_compressed(testing::to_csv(good_rows()));
  expect_rejected("XzCut", packed.substr(0, packed.size() / 2), {"xz", "cut short"}, "in.csv.xz");
  std::string flipped = packed;
  flipped[flipped.size() / 2] = static_cast<char>(flipped[flipped.size() / 2] ^ 0xFF);
  expect_rejected("XzCorrupt", flipped, {"xz"}, "in.csv.xz");
  expect_rejected("XzPlain", testing::to_csv(good_rows()), {"not xz data"}, "in.csv.xz");
}

}  // namespace
}  // namespace kvb
