// Machine and build facts captured once per run; every CSV row carries them.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

namespace kvb {

class Topology;

struct RunMetadata {
  std::string run_id;          // <host>-<yyyymmddThhmmssZ>
  std::string host;
  std::string cpu_vendor;
  std::string cpu_model;       // commas removed
  // Which CPU design it is where cpu_model does not say (a guest often reports only "AMD EPYC"):
  // "family F model M stepping S" on x86 (hwloc, else /proc/cpuinfo), "implementer I part P
  // variant V revision R" on Arm, "unknown" elsewhere.
  std::string cpu_signature;
  // kvb::simd_target_name(), "+AMX-INT8" if int8 attention uses AMX, "+AVX512-BF16" if bf16 rows
  // are encoded with that extension (kvb::bf16_encode_path()), "+PF-T2" / "+PF-NONE" if the
  // attention kernels' software prefetch is not the default T0 (kernels/sw_prefetch.h)
  std::string isa;
  int pus_total = 0;
  int numa_nodes = 0;
  std::int64_t l1d_bytes = 0, l2_bytes = 0, l3_bytes = 0;  // hwloc's; 0 = absent (CSV empty)
  std::int64_t llc_bytes = 0;  // LLC shared by the PUs used
  std::string llc_source;      // where its size came from: hwloc, measured, option (harness/llc_probe)
  std::int64_t llc_hwloc_bytes = 0;  // what hwloc said of the same instances
  std::int64_t mem_bytes = 0;
  std::string os_kernel;
  std::string hypervisor;      // "none" or vendor, e.g. "KVM"
  std::string thp_mode;        // always / madvise / never / unknown
  std::string governor;        // cpufreq governor of the first PU used, or "unknown"
  std::string compiler;
  std::string cxx_flags;
  std::string git_commit;
  std::string kvbench_version;
  std::string start_utc;       // ISO-8601
  std::vector<unsigned> pus_used;
};

// Collects everything; `pus_used` are the PUs the workers run on (for llc_bytes, governor).
RunMetadata collect_metadata(const Topology& topo, const std::vector<unsigned>& pus_used);
// The first package's x86 vendor string ("AuthenticAMD", "GenuineIntel") and family number
// (hwloc, else /proc/cpuinfo); family -1 where there is none (Arm).
struct CpuFamily {
  std::string vendor;
  int family = -1;
};
CpuFamily cpu_family(const Topology& topo);
// The isa column as it stands now: simd_target_name() and the suffixes of RunMetadata::isa.
std::string kernel_isa();
// "2026-11-21T23:40:05Z", now.
std::string utc_timestamp();
// (column, value) pairs of the identity/machine columns, in schema order, timestamp = now.
std::vector<std::pair<std::string, std::string>> metadata_columns(const RunMetadata& m);

}  // namespace kvb
