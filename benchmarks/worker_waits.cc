#include "benchmarks/worker_waits.h"

#include <charconv>
#include <cstdint>
#include <string_view>
#include <system_error>

namespace kvb {
namespace {

constexpr std::string_view kWorkerPrefix = "barrier_held_pct:w";

double share_pct(std::uint64_t part, std::uint64_t whole) {
  return 100.0 * static_cast<double>(part) / static_cast<double>(whole);
}

}  // namespace

void set_barrier_wait_counters(const ParallelDecode::BarrierWait& before,
                               const ParallelDecode::BarrierWait& after, benchmark::UserCounters* counters) {
  if (after.running <= before.running) return;
  (*counters)["barrier_wait_pct"] = share_pct(after.waiting - before.waiting, after.running - before.running);
  const std::uint64_t waited = after.waiting - before.waiting;
  if (waited == 0) return;
  for (std::size_t w = 0; w < after.by_worker.size(); ++w) {
    const std::uint64_t then = w < before.by_worker.size() ? before.by_worker[w].held : 0;
    (*counters)[std::string(kWorkerPrefix) + std::to_string(w)] = share_pct(after.by_worker[w].held - then, waited);
  }
}

bool is_worker_wait_counter(const std::string& name) { return name.rfind(kWorkerPrefix, 0) == 0; }

std::optional<SlowestWorker> slowest_worker(const benchmark::UserCounters& counters) {
  std::optional<SlowestWorker> slowest;
  for (const auto& [name, counter] : counters) {
    if (!is_worker_wait_counter(name)) continue;
    int w = 0;
    const char* first = name.data() + kWorkerPrefix.size();
    const char* last = name.data() + name.size();
    if (const auto [end, ec] = std::from_chars(first, last, w); ec != std::errc() || end != last) continue;
    const double pct = counter.value;
    if (!slowest || pct > slowest->held_pct || (pct == slowest->held_pct && w < slowest->worker)) {
      slowest = SlowestWorker{w, pct};
    }
  }
  return slowest;
}

}  // namespace kvb
