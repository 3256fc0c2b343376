// What an existing results CSV already holds, for --resume: configurations whose rows are
// complete, and the read and copy ceilings measured by the run that wrote them.
#pragma once
#include <map>
#include <set>
#include <string>

namespace kvb {

struct ExistingResults {
  std::set<std::string> complete;              // config_key() of complete configurations
  std::set<std::string> ceiling_groups;        // ceiling_group_key() with a complete ceiling set
  std::map<std::string, double> read_ceiling;  // "threads|pin|level" -> GB/s
  std::map<std::string, double> copy_ceiling;  // likewise, ceiling_copy
  std::set<std::string> machines;              // machine_identity() of every row
  std::set<std::string> isas;                  // the isa column of every row (code path)
};

// "<cpu_vendor> <cpu_model> (<cpu_signature>), <pus_total> PUs": what must match for a resumed
// run to reuse the file's ceilings and sit beside its rows. A file written before the
// cpu_signature column matches no machine that records one: "AMD EPYC" alone named both a Zen 3
// and a Zen 5 guest.
std::string machine_identity(const std::string& cpu_vendor, const std::string& cpu_model,
                             const std::string& cpu_signature, const std::string& pus_total);

// Reads `path` (columns by name). A configuration is complete when it has `repetitions`
// repetition rows and, for repetitions > 1, its cv aggregate (the last row written for it).
// A ceiling group is complete when its ceiling_read rows exist and, if `need_fma`, its
// ceiling_fma row (written last). Throws UsageError for an unreadable or malformed file, or one
// of an unknown schema_version.
ExistingResults read_existing_results(const std::string& path, int repetitions, bool need_fma);

}  // namespace kvb
