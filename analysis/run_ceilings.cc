#include "analysis/run_ceilings.h"

#include <algorithm>

namespace kvb {
namespace {

std::string key(const std::string& ceiling, const ResultRow& row, const std::string& level) {
  return ceiling + "|" + row.str(Col::run_id) + "|" + row.str(Col::threads) + "|" + row.str(Col::pin) + "|" + level;
}

}  // namespace

RunCeilings::RunCeilings(const MachineResults& m) {
  for (const ResultRow& r : m.summaries) {
    if (!r.is_ceiling()) continue;
    const auto g = attained_gbps(r);
    if (!g || !(*g > 0)) continue;
    auto [it, inserted] = best_.emplace(key(r.str(Col::benchmark), r, r.str(Col::ws_level)), *g);
    if (!inserted) it->second = std::max(it->second, *g);
  }
}

std::optional<double> RunCeilings::gbps(const std::string& ceiling, const ResultRow& row,
                                        const std::string& level) const {
  const auto it = best_.find(key(ceiling, row, level));
  if (it == best_.end()) return std::nullopt;
  return it->second;
}

std::optional<double> RunCeilings::read_gbps(const ResultRow& row, const std::string& level) const {
  if (row.str(Col::ws_level) == level) {
    if (const auto own = row.num(Col::ceiling_gbps); own && *own > 0) return own;
  }
  return gbps("ceiling_read", row, level);
}

}  // namespace kvb
