#include "benchmarks/machine_facts.h"

#include <fstream>
#include <string>

namespace kvb {
namespace {

std::int64_t meminfo_bytes(const std::string& key) {
  std::ifstream in("/proc/meminfo");
  std::string line;
  const std::string prefix = key + ":";
  while (std::getline(in, line)) {
    if (line.rfind(prefix, 0) == 0) return std::stoll(line.substr(prefix.size())) * 1024;  // kB
  }
  return 0;
}

}  // namespace

std::int64_t read_mem_available_bytes() { return meminfo_bytes("MemAvailable"); }
std::int64_t read_mem_total_bytes() { return meminfo_bytes("MemTotal"); }

}  // namespace kvb
