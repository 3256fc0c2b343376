// PAPI counters chosen by name (presets such as PAPI_TOT_CYC, native events, and kvbench's
// sde:::kvbench::* events), one event set per worker thread, summed across workers.
// A counter that cannot be read has a status saying why and no value, never a zero.
#pragma once
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace kvb {

class ThreadPool;

enum class CounterStatus { kOk, kMultiplexed, kUnsupported, kDenied };
const char* counter_status_name(CounterStatus s);  // "ok", "multiplexed", "unsupported", "denied"

struct CounterReading {
  std::string event;               // PAPI name as given
  CounterStatus status = CounterStatus::kUnsupported;
  std::optional<double> value;     // per unit of work, summed over workers; empty unless ok/multiplexed
  std::string reason;              // why it is unsupported/denied (PAPI's message)
};

class CounterSet {
 public:
  // Initialises PAPI (library + threads) and registers the SDE counters. Events are checked
  // per worker in attach(); an unknown name is reported as unsupported, not thrown.
  CounterSet(std::vector<std::string> events, int workers);
  ~CounterSet();
  CounterSet(const CounterSet&) = delete;
  CounterSet& operator=(const CounterSet&) = delete;

  // Called by each worker thread, once, on that thread: builds its event sets. start() does it
  // lazily, but call attach_all() before timing so set-up is not in the measured region.
  void attach(int worker);
  // Called by each worker on its thread around the measured region; stop() accumulates.
  void start(int worker);
  void stop(int worker);
  // Called by each worker before the pool goes away (PAPI_cleanup/destroy on that thread).
  void detach(int worker);

  // Convenience: attach()/detach() on every worker of `pool` (one run each).
  void attach_all(ThreadPool& pool);
  void detach_all(ThreadPool& pool);

  void reset();  // zero the accumulated totals
  // Totals divided by `units` (e.g. decode steps measured).
  std::vector<CounterReading> readings(std::int64_t units) const;
  // One line telling how to get hardware counters, empty if every event is readable.
  std::string notice() const;
  const std::vector<std::string>& events() const noexcept;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

// What the counters can do here (for `kvbench topo`): each PAPI component, enabled or why not,
// its counters and events, whether PAPI_TOT_CYC can actually count, and perf_event_paranoid.
std::string counter_capabilities();

// Names every kvbench SDE event (sde:::kvbench::...), handy as a default selection.
std::vector<std::string> sde_counter_names();

// Why PAPI certainly has no event called `name` here (a misspelt preset, an SDE event kvbench
// does not register, a component PAPI lacks), or "" when it has or may have one. A name meant
// for a component that is disabled here (perf_event on a guest without a PMU) may be real, so it
// is not refused: it runs and reads `unsupported`, as an event the machine cannot count.
std::string unknown_counter_reason(const std::string& name);

// Names every PAPI preset (PAPI_TOT_CYC, ...), available here or not.
std::vector<std::string> papi_preset_names();

}  // namespace kvb
