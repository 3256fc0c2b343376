// The last-level cache one core can use, from measured read bandwidth. A guest is often shown
// its host's socket-wide L3: the 2-vCPU Zen 5 guest reads 508 MiB per vCPU from CPUID
// 0x80000006, where one core's reads fall to DRAM speed past about 24 MB. kvbench sizes its
// LLC-resident contexts, its DRAM contexts and the ceilings' working sets from the LLC, so a
// size no core can use puts all of them in the wrong place. `--llc` chooses: hwloc's size,
// the measured one, a given one, or (auto) hwloc's unless the measurement contradicts it.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

namespace kvb {

class Topology;

struct ReadPoint {
  std::int64_t bytes = 0;  // working set
  double gbps = 0;         // read bandwidth of one core
};

struct LlcEstimate {
  double plateau_gbps = 0;      // the best read bandwidth of the curve (past the L2)
  double dram_gbps = 0;         // median of the curve's last octave
  std::int64_t knee_bytes = 0;  // where reads fall halfway from the plateau to DRAM (log-size
                                // interpolation); 0: no plateau 1.3x above DRAM to place it
};
// Auto's first test: does 70% of hwloc's LLC (`in_llc_gbps`, one core) read so much
// slower than a set just past the L2 (`past_l2_gbps`) that hwloc's size is in doubt? Pure.
bool hwloc_llc_in_doubt(double past_l2_gbps, double in_llc_gbps);

// The LLC size a measured knee stands for: the largest power of two not above 1.2 x the knee
// (llc_probe.cc says why). Pure.
std::int64_t llc_size_of_knee(std::int64_t knee_bytes);

// The curve ascending in bytes, from beyond the L2 to well beyond any cache. Pure.
LlcEstimate estimate_llc(const std::vector<ReadPoint>& curve);

// Working sets the probe reads: two per octave from 2 x `l2_bytes` to max(`largest_bytes`,
// 256 MiB), capped at a quarter of `mem_available` (0: no cap). `--llc measure` reads up to
// 4 x hwloc's LLC; auto, where it doubts hwloc's size, up to 70% of it.
std::vector<std::int64_t> llc_probe_sizes(std::int64_t l2_bytes, std::int64_t largest_bytes,
                                          std::int64_t mem_available);

// The --llc value that names `bytes` (whole MiB or KiB where it is one, else bytes): what a
// measured size is repeated with. parse_llc_setting reads it back to `bytes`. Pure.
std::string llc_option_value(std::int64_t bytes);

// kRecorded: the size a results file's rows were sized from, which a run resuming or appending
// to it with --llc auto keeps (benchmarks/existing_results.h), so that the series stays comparable.
enum class LlcPolicy { kAuto, kHwloc, kMeasure, kFixed, kRecorded };
struct LlcSetting {
  LlcPolicy policy = LlcPolicy::kAuto;
  std::int64_t bytes = 0;    // kFixed, kRecorded (0 where the file kept hwloc's)
  std::string source = "";       // kRecorded: the file's llc_source (hwloc, measured, option)
  std::string recorded_in = "";  // kRecorded: the file
};
// "auto", "hwloc", "measure" or a size: bytes, or with KiB/MiB/GiB (binary) or KB/MB/GB
// (decimal). Throws HarnessError naming the value otherwise.
LlcSetting parse_llc_setting(const std::string& text);

struct LlcDecision {
  std::vector<ReadPoint> curve;   // empty unless measured
  LlcEstimate estimate;
  std::int64_t hwloc_bytes = 0;   // hwloc's LLC instance holding the first PU
  std::int64_t bytes = 0;         // the instance size chosen; 0: hwloc's kept
  std::string source = "hwloc";   // hwloc, measured, option
  std::string summary;            // one line for the user
};
// What the setting makes of hwloc's size and a measured curve (empty for hwloc, fixed and
// recorded sizes; a recorded size keeps its source). Auto keeps hwloc's size unless the knee
// lies outside [0.7 x hwloc, 2 x hwloc]; measure takes the knee whenever there is one. A
// measured size is the largest power of two not above 1.2 x the knee, so the contexts sized from
// it stay put while the knee wanders. Pure.
LlcDecision decide_llc(const LlcSetting& setting, std::int64_t hwloc_bytes,
                       std::vector<ReadPoint> curve);

// Measures where the setting needs it (one thread on the first PU), decides, and replaces
// topo's LLC by the chosen size (one instance shared by the PUs of hwloc's LLC instances).
// Auto first reads two working sets (twice the L2, 70% of hwloc's LLC; twice each,
// in turn) and measures the whole curve only where hwloc_llc_in_doubt; measure always reads the
// curve (up to 4 x hwloc's LLC). Machines whose deepest cache is the L2 keep it, unless a size
// is given (a fixed or recorded one): that becomes a shared level beyond the L2.
LlcDecision apply_llc_setting(Topology& topo, const LlcSetting& setting, std::int64_t mem_available);

}  // namespace kvb
