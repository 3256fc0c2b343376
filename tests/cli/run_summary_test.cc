#include "benchmarks/run_summary.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace kvb {
namespace {

RunSummaryLine decode_row(const std::string& label, double pct) {
  RunSummaryLine l;
  l.label = label;
  l.gbps = pct;  // any: the table prints it as given
  l.pct = pct;
  l.streams_like_its_ceiling = true;
  l.valid = true;
  return l;
}

std::string line_of(const std::string& table, const std::string& label) {
  const auto at = table.find(label);
  if (at == std::string::npos) return "";
  return table.substr(at, table.find('\n', at) - at);
}

TEST(RunSummary, MarksOnlyReadRowsAboveTheirCeiling) {
  RunSummaryLine prefill = decode_row("prefill_copy int8", 140.0);
  prefill.streams_like_its_ceiling = false;  // a write, held to the copy ceiling
  const std::string table =
      format_run_summary({decode_row("decode_step fp32", 99.9), decode_row("decode_step int8", 101.6), prefill},
                         /*bracketed=*/false);
  EXPECT_NE(line_of(table, "decode_step int8").find("101.6*"), std::string::npos) << table;
  EXPECT_EQ(line_of(table, "decode_step fp32").find('*'), std::string::npos) << table;
  EXPECT_EQ(line_of(table, "prefill_copy int8").find('*'), std::string::npos) << table;
  EXPECT_NE(table.find("(1 row): that ceiling did not bound the row"), std::string::npos) << table;
  EXPECT_NE(table.find("--ceiling-bracket=1 holds each row"), std::string::npos) << table;
}

TEST(RunSummary, ABracketedRowIsToldByItsBrackets) {
  RunSummaryLine row = decode_row("decode_step fp16", 106.6);
  row.ceiling_before = 50.0;
  row.ceiling_after = 48.0;
  const std::string table = format_run_summary({row}, /*bracketed=*/true);
  EXPECT_NE(line_of(table, "decode_step fp16").find("50.00 -> 48.00 (-4.0%)"), std::string::npos) << table;
  EXPECT_NE(table.find("both read less than it streamed"), std::string::npos) << table;
  EXPECT_EQ(table.find("measured once, at its start"), std::string::npos) << table;
}

TEST(RunSummary, NoNoteWhenEveryRowIsBounded) {
  RunSummaryLine unmeasured = decode_row("attention bf16", 0);
  unmeasured.pct.reset();  // no ceiling for its level
  const std::string table = format_run_summary({decode_row("decode_step bf16", 100.0), unmeasured}, false);
  EXPECT_EQ(table.find('*'), std::string::npos) << table;
  EXPECT_NE(line_of(table, "attention bf16").find(" - "), std::string::npos) << table;
}

}  // namespace
}  // namespace kvb
