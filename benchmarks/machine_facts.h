// What sweep expansion and sizing need to know about the machine, gathered once by the caller
// (from the harness topology and /proc/meminfo) so the logic itself stays testable.
#pragma once
#include <cstdint>

namespace kvb {

struct MachineFacts {
  int pus_total = 1;
  std::int64_t l2_bytes = 0;        // one L2 instance
  std::int64_t llc_bytes = 0;       // whole last-level cache
  std::int64_t mem_bytes = 0;       // physical memory
  std::int64_t mem_available = 0;   // MemAvailable now
};

// MemAvailable and MemTotal from /proc/meminfo (0 when unreadable).
std::int64_t read_mem_available_bytes();
std::int64_t read_mem_total_bytes();

}  // namespace kvb
