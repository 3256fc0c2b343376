// Results of one machine (host, cpu_model and cache sizes), reduced to one summary row per
// configuration, plus the machine's measured ceilings. The report is built from these.
#pragma once
#include <map>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "analysis/result_table.h"

namespace kvb {

struct MachineResults {
  std::string id;      // short file-name-safe id: "cpu0", "cpu1", ...
  std::string label;   // "<cpu_model> (<host>)", "[<signature or isa>, L2 <KiB>]" (and L3, L1d
                       // until it is unique) added when another machine has the same model and host
  std::string cpu_model, cpu_signature, host, isa, compiler, kvbench_version;
  std::set<std::string> run_ids;
  std::optional<double> l1d_bytes, l2_bytes, l3_bytes;
  // The LLC kvbench ran against: runs of one machine can differ (a measured LLC whose knee
  // wanders, --llc). The machine's is the one most runs used (the first seen on a tie); each
  // LLC seen is in llcs with its runs, in order of first appearance.
  struct Llc {
    std::optional<double> bytes;
    std::string source;                 // hwloc, measured, option ("" in older files: hwloc)
    std::optional<double> hwloc_bytes;  // what hwloc said where source is not hwloc
    std::set<std::string> run_ids;
  };
  std::vector<Llc> llcs;
  // llcs, most runs first (the first seen on a tie): front() is the machine's.
  std::vector<const Llc*> llcs_by_runs() const;
  std::optional<double> llc_bytes;
  std::string llc_source;
  std::optional<double> llc_hwloc_bytes;
  // One row per (run_id, configuration): the median aggregate row, or when a run wrote no
  // aggregates, the repetition with the median time. Invalid kernels are kept (flagged).
  std::vector<ResultRow> summaries;
  // Per summary (same index): ns_per_step of its configuration's fastest repetition, when the
  // run wrote repetition rows. Ceilings report their best repetition (as STREAM does); this lets
  // a kernel be set beside them the same way.
  std::vector<std::optional<double>> fastest_ns;
  // Best read bandwidth (GB/s) per (ws_level, threads) over the ceiling_read summaries.
  std::map<std::pair<std::string, int>, double> read_roof_gbps;
  // Best FP32 FMA GFLOP/s per thread count over the ceiling_fma and ceiling_fma_end summaries.
  std::map<int, double> fma_peak_gflops;
  // The slowest worker of the burst that gave fma_peak_gflops, where its row recorded one
  // (core_slowest_pct: % of its fastest worker's rate; core_slowest_pu): a peak taken with a
  // worker slowed is a slowed core's, which rows compared with it share unseen.
  struct SlowestWorker {
    double pct = 100;
    std::optional<int> pu;
  };
  std::map<int, SlowestWorker> fma_peak_slowest;

  std::optional<double> read_roof(const std::string& ws_level, int threads) const;
  // The fastest repetition's GB/s of summaries[i] (its attained GB/s scaled by median / fastest
  // time); nullopt without repetition rows.
  std::optional<double> fastest_gbps(std::size_t i) const;
  std::optional<double> fma_peak(int threads) const;
  // Thread count the roofline uses: the most threads any kernel row ran with.
  int roofline_threads() const;
};

// Groups rows by (host, cpu_model) in order of first appearance.
std::vector<MachineResults> group_by_machine(const std::vector<ResultRow>& rows);

// Attained GB/s of a summary row: from the cost model and time, else the CSV's gbps column.
std::optional<double> attained_gbps(const ResultRow& row);

}  // namespace kvb
