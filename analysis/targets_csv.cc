#include "analysis/targets_csv.h"

#include <cctype>
#include <cstdio>
#include <type_traits>

#include "analysis/text_table.h"

namespace kvb {
namespace {

// "DRAM streaming" -> "dram_streaming", "LLC-resident" -> "llc_resident".
std::string target_key(TargetKind kind) {
  std::string key;
  for (const char c : target_name(kind)) {
    key += std::isalnum(static_cast<unsigned char>(c)) ? static_cast<char>(std::tolower(static_cast<unsigned char>(c))) : '_';
  }
  return key;
}

std::string verdict_key(Verdict v) {
  switch (v) {
    case Verdict::kMet: return "met";
    case Verdict::kNotMet: return "not_met";
    case Verdict::kUnsettled: return "unsettled";
    case Verdict::kNotMeasured: return "not_measured";
    case Verdict::kInformational: return "informational";
  }
  return "";
}

template <typename T>
std::string joined(const std::vector<T>& values) {
  std::string s;
  for (const T& v : values) {
    if (!s.empty()) s += "+";
    if constexpr (std::is_same_v<T, std::string>) {
      s += v;
    } else {
      s += std::to_string(v);
    }
  }
  return s;
}

// Six significant digits, no trailing zeros: 78.6378, 90, 1.1.
std::string value(const std::optional<double>& v) {
  if (!v) return "";
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.6g", *v);
  return buf;
}

}  // namespace

std::string targets_csv(const std::vector<MachineResults>& ms, const std::vector<EfficiencyTargets>& targets) {
  TextTable t({"machine", "cpu_model", "cpu_signature", "host", "target", "benchmark", "dtype", "threads",
               "group_size", "rows", "rows_met", "worst", "best", "threshold", "direction", "verdict", "worst_shape",
               "worst_context", "worst_cache_state", "worst_run_id"});
  for (std::size_t i = 0; i < ms.size() && i < targets.size(); ++i) {
    const MachineResults& m = ms[i];
    for (const TargetLine& l : targets[i].lines) {
      const TargetThreshold threshold = target_threshold(l.kind);
      const ResultRow* w = l.worst_row;
      t.add_row({m.id, m.cpu_model, m.cpu_signature, m.host, target_key(l.kind), l.benchmark, joined(l.dtypes),
                 joined(l.threads), l.kind == TargetKind::kGqa ? std::to_string(l.group_size) : "",
                 std::to_string(l.measured), std::to_string(l.met), value(l.worst), value(l.best),
                 value(threshold.value), threshold.value ? (threshold.at_least ? "at_least" : "at_most") : "",
                 verdict_key(l.verdict), w ? shape_label(*w) : "", w ? w->str(Col::context) : "",
                 w ? w->str(Col::cache_state) : "",
                 w ? w->str(Col::run_id) : ""});
    }
  }
  return t.csv();
}

}  // namespace kvb
