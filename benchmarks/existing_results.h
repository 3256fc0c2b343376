// What an existing results CSV already holds, for --resume: configurations whose rows are
// complete, and which machines and code paths wrote them. Its ceilings are not reused: a resumed
// run measures its own, so its rows are held to ceilings of the same invocation.
#pragma once
#include <compare>
#include <cstdint>
#include <optional>
#include <set>
#include <string>

#include "harness/llc_probe.h"

namespace kvb {

struct ExistingResults {
  std::set<std::string> complete;              // config_key() of complete configurations
  std::set<std::string> machines;              // machine_identity() of every row
  std::set<std::string> isas;                  // the isa column of every row (code path)
};

// "<cpu_vendor> <cpu_model> (<cpu_signature>), <pus_total> PUs": what must match for a resumed
// run's rows to sit beside the file's. A file written before the
// cpu_signature column matches no machine that records one: "AMD EPYC" alone named both a Zen 3
// and a Zen 5 guest.
std::string machine_identity(const std::string& cpu_vendor, const std::string& cpu_model,
                             const std::string& cpu_signature, const std::string& pus_total);

// Reads `path` (columns by name). A configuration is complete when it has `repetitions`
// repetition rows and, for repetitions > 1, its cv aggregate (the last row written for it);
// ceiling rows complete nothing. Throws UsageError for an unreadable or malformed file, or one of
// an unknown schema_version.
ExistingResults read_existing_results(const std::string& path, int repetitions);

// The LLC one group of a file's rows was sized from.
struct RecordedLlc {
  std::string machine;     // machine_identity()
  std::int64_t bytes = 0;  // llc_bytes; 0 where the row has none
  std::string source;      // llc_source; "hwloc" where the file predates the column
  auto operator<=>(const RecordedLlc&) const = default;
};
// Every distinct LLC of `path`'s rows, read up to its first unreadable row: a run that was killed
// leaves a partial last row, which --resume sets aside only later. Empty where the file cannot be
// read or has no llc_bytes column (before schema version 1 had it).
std::set<RecordedLlc> read_recorded_llc(const std::string& path);

// What --llc auto becomes for a run that adds to `path` (--resume, --append) on machine `here`:
// the size its rows were sized from, so that `--context auto` and the ceilings' working sets
// match theirs however the knee wanders (results/epyc-zen3-2c-kvm/llc-auto/). Nothing where
// the file holds no LLC, another machine's rows, or several sizes (`note` then says why auto
// decides afresh). Pure.
std::optional<LlcSetting> llc_setting_of_file(const std::set<RecordedLlc>& recorded,
                                              const std::string& here, const std::string& path,
                                              std::string* note);

}  // namespace kvb
