#include "harness/metadata.h"

#include <hwloc.h>
#include <sys/utsname.h>
#include <unistd.h>
#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>
#endif

#include <algorithm>
#include <cstring>
#include <ctime>
#include <fstream>
#include <sstream>

#include "harness/topology.h"
#include "kernels/attention.h"
#include "kernels/cache_write.h"
#include "kernels/slot_prefetch.h"
#include "kernels/sw_prefetch.h"
#include "kernels/tile_order.h"

#include "git_commit.h"  // generated at build time by harness/git_commit.cmake
#ifndef KVBENCH_COMPILER
#define KVBENCH_COMPILER "unknown"
#endif
#ifndef KVBENCH_CXX_FLAGS
#define KVBENCH_CXX_FLAGS ""
#endif
#ifndef KVBENCH_VERSION
#define KVBENCH_VERSION "unknown"
#endif

namespace kvb {
namespace {

std::string read_first_line(const std::string& path) {
  std::ifstream f(path);
  std::string s;
  if (f) std::getline(f, s);
  return s;
}

std::string trim(std::string s) {
  const auto b = s.find_first_not_of(" \t");
  const auto e = s.find_last_not_of(" \t");
  return b == std::string::npos ? "" : s.substr(b, e - b + 1);
}

// CSV fields never hold commas/quotes/newlines (results/README.md): drop them.
std::string csv_safe(std::string s) {
  std::string out;
  for (char c : s)
    if (c != ',' && c != '"' && c != '\n' && c != '\r') out += c;
  return trim(out);
}

std::string cpuinfo_field(const std::string& key) {
  std::ifstream f("/proc/cpuinfo");
  std::string line;
  while (std::getline(f, line)) {
    const auto colon = line.find(':');
    if (colon == std::string::npos) continue;
    if (trim(line.substr(0, colon)) == key) return trim(line.substr(colon + 1));
  }
  return "";
}

std::string hwloc_package_info(const Topology& topo, const char* name) {
  hwloc_obj_t pkg = hwloc_get_next_obj_by_type(topo.raw(), HWLOC_OBJ_PACKAGE, nullptr);
  const char* v = pkg ? hwloc_obj_get_info_by_name(pkg, name) : nullptr;
  return v ? v : "";
}

// A fact of the first package: hwloc's info attribute, else the /proc/cpuinfo field.
std::string package_field(const Topology& topo, const char* hwloc_name, const char* cpuinfo_name) {
  std::string v = hwloc_package_info(topo, hwloc_name);
  return v.empty() ? cpuinfo_field(cpuinfo_name) : v;
}

std::string cpu_signature(const Topology& topo) {
  const std::string family = package_field(topo, "CPUFamilyNumber", "cpu family");
  const std::string model = package_field(topo, "CPUModelNumber", "model");
  if (!family.empty() && !model.empty())
    return csv_safe("family " + family + " model " + model + " stepping " +
                    package_field(topo, "CPUStepping", "stepping"));
  const std::string implementer = cpuinfo_field("CPU implementer");
  const std::string part = cpuinfo_field("CPU part");
  if (!implementer.empty() && !part.empty())
    return csv_safe("implementer " + implementer + " part " + part + " variant " +
                    cpuinfo_field("CPU variant") + " revision " + cpuinfo_field("CPU revision"));
  return "unknown";
}

std::string hypervisor() {
  std::string t = read_first_line("/sys/hypervisor/type");
  if (!t.empty()) return csv_safe(t);
#if defined(__x86_64__) || defined(__i386__)
  unsigned a = 0, b = 0, c = 0, d = 0;
  __cpuid(1, a, b, c, d);
  if (c & (1u << 31)) {  // CPUID.1:ECX.hypervisor
    __cpuid(0x40000000, a, b, c, d);
    char vendor[13] = {};
    std::memcpy(vendor, &b, 4);
    std::memcpy(vendor + 4, &c, 4);
    std::memcpy(vendor + 8, &d, 4);
    const std::string v = trim(vendor);
    if (v.rfind("KVMKVMKVM", 0) == 0) return "KVM";
    if (v == "Microsoft Hv") return "Hyper-V";
    if (v == "VMwareVMware") return "VMware";
    if (v == "XenVMMXenVMM") return "Xen";
    if (v == "TCGTCGTCGTCG") return "QEMU-TCG";
    return v.empty() ? "unknown" : csv_safe(v);
  }
  return "none";
#else
  const std::string flags = cpuinfo_field("flags");
  return flags.find(" hypervisor") != std::string::npos ? "unknown" : "none";
#endif
}

std::string thp_mode() {
  const std::string s = read_first_line("/sys/kernel/mm/transparent_hugepage/enabled");
  const auto a = s.find('['), b = s.find(']');
  return a != std::string::npos && b > a ? s.substr(a + 1, b - a - 1) : "unknown";
}

}  // namespace

std::string utc_timestamp() {
  const std::time_t now = std::time(nullptr);
  std::tm tm{};
  gmtime_r(&now, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

CpuFamily cpu_family(const Topology& topo) {
  CpuFamily f;
  f.vendor = package_field(topo, "CPUVendor", "vendor_id");
  const std::string family = package_field(topo, "CPUFamilyNumber", "cpu family");
  if (!family.empty() && family.size() < 6 &&
      family.find_first_not_of("0123456789") == std::string::npos)
    f.family = std::stoi(family);
  return f;
}

std::string kernel_isa() {
  std::string isa = simd_target_name();
  if (std::strcmp(attention_int8_path(), "FMA") != 0)  // A/B rows of KVBENCH_AMX differ here
    isa += std::string("+") + attention_int8_path();
  if (std::strcmp(bf16_encode_path(), "SIMD") != 0)  // and of KVBENCH_AVX512_BF16 here
    isa += std::string("+") + bf16_encode_path();
  if (sw_prefetch() != SwPrefetch::kT0)  // rows of kvbench run --sw-prefetch t2 / none differ here
    isa += sw_prefetch() == SwPrefetch::kT2 ? "+PF-T2" : "+PF-NONE";
  if (tile_order() != TileOrder::kLinear)  // and of kvbench run --tile-order halves here
    isa += "+HALVES";
  if (slot_prefetch() != SlotPrefetch::kWrite)  // and of kvbench run --slot-prefetch t0 / none here
    isa += slot_prefetch() == SlotPrefetch::kRead ? "+SLOT-T0" : "+SLOT-NONE";
  return isa;
}

RunMetadata collect_metadata(const Topology& topo, const std::vector<unsigned>& pus_used) {
  RunMetadata m;
  char host[256] = {};
  gethostname(host, sizeof host - 1);
  m.host = csv_safe(host[0] ? host : "unknown");
  m.start_utc = utc_timestamp();
  std::string compact = m.start_utc;  // 2026-11-21T23:40:05Z -> 20261121T234005Z
  compact.erase(std::remove(compact.begin(), compact.end(), '-'), compact.end());
  compact.erase(std::remove(compact.begin(), compact.end(), ':'), compact.end());
  m.run_id = m.host + "-" + compact;
  m.cpu_vendor = package_field(topo, "CPUVendor", "vendor_id");
  m.cpu_model = package_field(topo, "CPUModel", "model name");
  m.cpu_vendor = csv_safe(m.cpu_vendor.empty() ? "unknown" : m.cpu_vendor);
  m.cpu_model = csv_safe(m.cpu_model.empty() ? "unknown" : m.cpu_model);
  m.cpu_signature = cpu_signature(topo);
  m.isa = kernel_isa();
  m.pus_total = topo.pu_count();
  m.numa_nodes = topo.numa_nodes();
  m.l1d_bytes = topo.cache_bytes(1).value_or(0);
  m.l2_bytes = topo.cache_bytes(2).value_or(0);
  m.l3_bytes = topo.hwloc_cache_bytes(3).value_or(0);  // identity: hwloc's, whatever --llc chose
  m.llc_bytes = topo.llc_bytes_for(pus_used);
  m.llc_source = topo.llc_source();
  m.llc_hwloc_bytes = topo.hwloc_llc_bytes_for(pus_used);
  // Physical memory as the OS reports it; hwloc's NUMA total may differ in a VM and is
  // listed in Topology::os_disagreements().
  m.mem_bytes = static_cast<std::int64_t>(sysconf(_SC_PHYS_PAGES)) * sysconf(_SC_PAGESIZE);
  utsname u{};
  m.os_kernel = uname(&u) == 0 ? csv_safe(u.release) : "unknown";
  m.hypervisor = hypervisor();
  m.thp_mode = thp_mode();
  const unsigned first = pus_used.empty() ? (topo.pus().empty() ? 0 : topo.pus()[0]) : pus_used[0];
  m.governor = csv_safe(read_first_line("/sys/devices/system/cpu/cpu" + std::to_string(first) +
                                        "/cpufreq/scaling_governor"));
  if (m.governor.empty()) m.governor = "unknown";
  m.compiler = csv_safe(KVBENCH_COMPILER);
  m.cxx_flags = csv_safe(KVBENCH_CXX_FLAGS);
  m.git_commit = csv_safe(KVBENCH_GIT_COMMIT);
  m.kvbench_version = csv_safe(KVBENCH_VERSION);
  m.pus_used = pus_used;
  return m;
}

std::vector<std::pair<std::string, std::string>> metadata_columns(const RunMetadata& m) {
  auto opt_bytes = [](std::int64_t v) { return v > 0 ? std::to_string(v) : std::string(); };
  return {
      {"schema_version", "1"},
      {"run_id", m.run_id},
      {"timestamp", utc_timestamp()},
      {"host", m.host},
      {"cpu_vendor", m.cpu_vendor},
      {"cpu_model", m.cpu_model},
      {"cpu_signature", m.cpu_signature},
      {"isa", m.isa},
      {"pus_total", std::to_string(m.pus_total)},
      {"numa_nodes", std::to_string(m.numa_nodes)},
      {"l1d_bytes", opt_bytes(m.l1d_bytes)},
      {"l2_bytes", opt_bytes(m.l2_bytes)},
      {"l3_bytes", opt_bytes(m.l3_bytes)},
      {"llc_bytes", opt_bytes(m.llc_bytes)},
      {"llc_source", m.llc_source},
      {"llc_hwloc_bytes", opt_bytes(m.llc_hwloc_bytes)},
      {"mem_bytes", opt_bytes(m.mem_bytes)},
      {"os_kernel", m.os_kernel},
      {"hypervisor", m.hypervisor},
      {"thp_mode", m.thp_mode},
      {"governor", m.governor},
      {"compiler", m.compiler},
      {"cxx_flags", m.cxx_flags},
      {"git_commit", m.git_commit},
      {"kvbench_version", m.kvbench_version},
  };
}

}  // namespace kvb
