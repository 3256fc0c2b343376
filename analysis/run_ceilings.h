// Each run's own measured ceilings, looked up for a kernel row: machines drift between runs, so
// a kernel is only ever judged against a ceiling of its own run (same run_id, threads and pin).
#pragma once
#include <map>
#include <optional>
#include <string>

#include "analysis/machine_results.h"

namespace kvb {

class RunCeilings {
 public:
  explicit RunCeilings(const MachineResults& m);

  // Best GB/s of `ceiling` (e.g. "ceiling_read", "ceiling_copy") at `level` over the buffer sizes
  // measured in `row`'s run at `row`'s thread count and pinning; nullopt when not measured.
  std::optional<double> gbps(const std::string& ceiling, const ResultRow& row, const std::string& level) const;

  // The read ceiling `row` is judged against at `level`: its own ceiling_gbps column when `level`
  // is the row's ws_level (kvbench run wrote it from the same run), else the lookup above.
  std::optional<double> read_gbps(const ResultRow& row, const std::string& level) const;

 private:
  std::map<std::string, double> best_;  // ceiling|run_id|threads|pin|level -> GB/s
};

}  // namespace kvb
