#include "analysis/result_table.h"

// fast-cpp-csv-parser trips GCC's string-truncation warning in its own error formatting.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wstringop-truncation"
#include <libfccp/csv.h>
#pragma GCC diagnostic pop

#include <algorithm>
#include <charconv>
#include <filesystem>
#include <initializer_list>
#include <string_view>
#include <utility>

#include "analysis/input_error.h"
#include "analysis/xz_source.h"

namespace kvb {
namespace {

struct ColumnSpec {
  const char* name;
  ColKind kind;
};

constexpr ColKind kText = ColKind::kText;
constexpr ColKind kInt = ColKind::kInt;
constexpr ColKind kFloat = ColKind::kFloat;

constexpr ColumnSpec kColumns[] = {
#define KVB_SPEC_ENTRY(name, kind) {#name, k##kind},
    KVB_RESULT_COLUMNS(KVB_SPEC_ENTRY)
#undef KVB_SPEC_ENTRY
};
static_assert(std::size(kColumns) == kColumnCount);

// Trim spaces/tabs; the schema never quotes fields, so no quote policy is needed.
using Reader = io::CSVReader<kColumnCount, io::trim_chars<' ', '\t'>, io::no_quote_escape<','>>;

template <std::size_t... I>
void read_header(Reader& reader, std::index_sequence<I...>) {
  reader.read_header(io::ignore_extra_column | io::ignore_missing_column,
                     std::string(kColumns[I].name)...);
}

template <std::size_t... I>
bool read_row(Reader& reader, std::array<char*, kColumnCount>& fields, std::index_sequence<I...>) {
  return reader.read_row(fields[I]...);
}

std::string where(const std::string& path, unsigned line) {
  return path + ":" + std::to_string(line);
}

std::optional<double> parse_number(const std::string& path, unsigned line, Col col,
                                   std::string_view text) {
  if (text.empty()) return std::nullopt;  // empty = not measured
  const char* first = text.data();
  const char* last = text.data() + text.size();
  if (column_kind(col) == ColKind::kInt) {
    long long value = 0;
    auto [ptr, ec] = std::from_chars(first, last, value);
    if (ec == std::errc() && ptr == last) return static_cast<double>(value);
  } else {
    double value = 0;
    auto [ptr, ec] = std::from_chars(first, last, value);
    if (ec == std::errc() && ptr == last) return value;
  }
  throw InputError(where(path, line) + ": column '" + std::string(column_name(col)) + "': '" +
                   std::string(text) + "' is not " +
                   (column_kind(col) == ColKind::kInt ? "an integer" : "a number"));
}

// The columns whose values results/README.md enumerates; empty is allowed where a row has no
// such value (ceilings). A value outside its list is a hand edit or a foreign file: refused, as
// it would otherwise start a series of its own in every table.
struct Enumerated {
  Col col;
  std::initializer_list<std::string_view> values;
};
const Enumerated kEnumerated[] = {
    {Col::aggregate, {"none", "mean", "median", "stddev", "cv"}},
    {Col::dtype, {"", "fp32", "fp16", "bf16", "int8", "fp8_e4m3", "fp8_e5m2", "int4"}},
    {Col::layout, {"", "head_major", "position_major"}},
    {Col::cache_state, {"", "warm", "cold", "weights", "fresh"}},
    {Col::ws_level, {"", "L1", "L2", "L3", "L4", "DRAM"}},
    {Col::valid, {"", "0", "1"}},
};

void check_enumerated(const std::string& path, unsigned line, const ResultRow& row) {
  for (const Enumerated& e : kEnumerated) {
    const std::string& value = row.str(e.col);
    if (std::find(e.values.begin(), e.values.end(), value) != e.values.end()) continue;
    std::string known;
    for (std::string_view v : e.values) {
      if (v.empty()) continue;
      known += known.empty() ? "" : ", ";
      known += v;
    }
    throw InputError(where(path, line) + ": column '" + std::string(column_name(e.col)) + "': unknown value '" +
                     value + "' (" + known + ")");
  }
}

}  // namespace

std::string_view column_name(Col c) { return kColumns[static_cast<std::size_t>(c)].name; }
ColKind column_kind(Col c) { return kColumns[static_cast<std::size_t>(c)].kind; }

std::vector<ResultRow> load_results(const std::string& path) {
  std::error_code ec;
  if (!std::filesystem::exists(path, ec)) throw InputError(path + ": no such file");
  if (!std::filesystem::is_regular_file(path, ec)) throw InputError(path + ": not a regular file");
  if (std::filesystem::file_size(path, ec) == 0) throw InputError(path + ": empty file (no header line)");

  std::vector<ResultRow> rows;
  constexpr auto kIndices = std::make_index_sequence<kColumnCount>{};
  try {
    Reader reader = is_xz_path(path) ? Reader(path, open_xz_source(path)) : Reader(path);
    read_header(reader, kIndices);
    for (std::size_t i = 0; i < kColumnCount; ++i) {
      const bool optional = std::find(std::begin(kOptionalColumns), std::end(kOptionalColumns),
                                      static_cast<Col>(i)) != std::end(kOptionalColumns);
      if (!optional && !reader.has_column(kColumns[i].name)) {
        throw InputError(path + ":1: missing required column '" + kColumns[i].name + "'");
      }
    }
    std::array<char*, kColumnCount> fields{};
    while (read_row(reader, fields, kIndices)) {
      ResultRow row;
      row.file = path;
      row.line = reader.get_file_line();
      for (std::size_t i = 0; i < kColumnCount; ++i) {
        const Col col = static_cast<Col>(i);
        row.text[i] = fields[i] ? fields[i] : "";
        if (kColumns[i].kind != ColKind::kText) {
          row.number[i] = parse_number(path, row.line, col, row.text[i]);
        }
      }
      const auto version = row.num(Col::schema_version);
      if (!version || *version != kSchemaVersion) {
        throw InputError(where(path, row.line) + ": column 'schema_version': unknown schema version '" +
                         row.str(Col::schema_version) + "' (this kvbench reads version " +
                         std::to_string(kSchemaVersion) + ")");
      }
      check_enumerated(path, row.line, row);
      if (row.str(Col::benchmark).empty()) {
        throw InputError(where(path, row.line) + ": column 'benchmark': empty");
      }
      rows.push_back(std::move(row));
    }
  } catch (const io::error::base& e) {
    // fast-cpp-csv-parser's messages already name the file and line (too few/many columns ...).
    throw InputError(path + ": malformed CSV: " + e.what());
  }
  if (rows.empty()) throw InputError(path + ": header only, no result rows");
  return rows;
}

std::vector<ResultRow> load_results(const std::vector<std::string>& paths) {
  std::vector<ResultRow> all;
  for (const auto& p : paths) {
    auto rows = load_results(p);
    all.insert(all.end(), std::make_move_iterator(rows.begin()), std::make_move_iterator(rows.end()));
  }
  return all;
}

std::string shape_label(const ResultRow& row) {
  if (row.str(Col::layers).empty()) return "";
  return row.str(Col::layers) + "L " + row.str(Col::q_heads) + "q/" + row.str(Col::kv_heads) + "kv d" +
         row.str(Col::head_dim);
}

std::string join_columns(const ResultRow& row, const std::vector<Col>& columns,
                         std::string_view separator) {
  std::string out;
  for (Col c : columns) {
    if (!out.empty()) out += separator;
    out += column_name(c);
    out += '=';
    out += row.str(c);
  }
  return out;
}

}  // namespace kvb
