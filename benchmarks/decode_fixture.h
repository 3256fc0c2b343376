// Everything one decode configuration needs while it is benchmarked: the pinned pool, the
// cache buffer, the parallel executor, the cache-state buffers (LLC flush, layer weights), the
// in-run validation against the double reference, and the counter readings.
#pragma once
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "benchmarks/run_options.h"
#include "benchmarks/sweep.h"
#include "harness/counters.h"
#include "harness/memory.h"
#include "harness/parallel_decode.h"
#include "harness/thread_pool.h"
#include "kernels/cache_geometry.h"

namespace kvb {

class Topology;

struct Validation {
  bool valid = false;
  double max_rel_err = 0;  // attention output vs reference, relative to max |reference|
  std::string detail;      // what failed, empty when valid
};

class DecodeFixture {
 public:
  // Allocates and fills the cache (first touch by the workers of the static partition, see
  // harness/parallel_decode.h), then validates one step. Throws HarnessError/UsageError when the
  // configuration cannot be set up.
  // A hybrid configuration (sliding pattern) is two uniform parts on one pool: this fixture
  // holds the sliding layers' ring cache and a child the global layers' cache; every unit runs
  // both, costs and counters add up, validation covers both.
  DecodeFixture(const Topology& topo, const DecodeConfig& config, const Placement& placement,
                std::int64_t llc_bytes, const std::vector<std::string>& counter_events,
                int validate_layers, bool inject_fault = false);
  ~DecodeFixture();
  DecodeFixture(const DecodeFixture&) = delete;
  DecodeFixture& operator=(const DecodeFixture&) = delete;

  // Untimed work before each timed step: LLC flush (cold) or weight streaming (weights).
  void prepare_step();
  // One timed unit of `family`: a decode step, attention or append over all layers, or the
  // prefill copy of all context tokens into every layer (workers take layers round-robin).
  void run(Family family, CounterSet* counters = nullptr);

  Cost cost(Family family) const;
  // Validity of `family`: the decode validation, plus (prefill_copy) the copied rows check,
  // (append) the rows of one append run, or (append_memcpy, append_streaming) its rows
  // byte-identical to the append's at the same slot.
  const Validation& validation(Family family);
  const Validation& validation() const noexcept { return validation_; }
  const std::string& pu_list() const noexcept { return pu_list_; }
  double fill_seconds() const noexcept { return fill_seconds_; }
  // How to get the hardware counters that could not be read ("" if all were readable).
  std::string counter_notice() const { return counters_->notice(); }
  double validation_seconds() const noexcept { return validation_seconds_; }
  ThpBacking thp() const;  // of the cache buffer, read now
  const std::vector<unsigned>& pus() const;
  // What the variant families build on (benchmarks/variant_runner.h): the pinned pool, the
  // filled cache, the positions attended and the per-layer queries.
  ThreadPool& pool() noexcept { return *pool_; }
  CacheView cache_view() const { return view(); }
  std::int64_t context() const noexcept;
  const float* query(std::int32_t layer) const;
  // Counter readings per unit of `mode`, measured once (untimed) on first request.
  const std::vector<CounterReading>& counter_readings(Family family);
  // The workers' barrier waits in every decode and attention unit so far, a hybrid's child
  // included (ParallelDecode::barrier_wait; both run on one pool, so worker i is one PU in
  // both); differences around a timed loop give its share.
  ParallelDecode::BarrierWait barrier_wait() const;

 private:
  // One uniform part; `full` sizes the weight buffer, `pool` is shared when given.
  DecodeFixture(const Topology& topo, const DecodeConfig& part, const DecodeConfig& full,
                const Placement& placement, std::int64_t llc_bytes,
                const std::vector<std::string>& counter_events, int validate_layers,
                bool inject_fault, std::shared_ptr<ThreadPool> pool);
  void run_units(Family family, std::int64_t steps, CounterSet* counters);
  void validate(int validate_layers, bool inject_fault);
  void run_prefill(CounterSet* counters);
  void validate_prefill();
  void validate_append();
  void validate_append_memcpy();
  void validate_append_streaming();
  // The validation of a mode that must write the append's bytes (append_memcpy, append_streaming).
  Validation same_bytes_as_append(ParallelDecode::Mode mode, const char* name);
  // Runs one append and keeps the next run of any append mode on the slot it wrote; returns it.
  std::int64_t pin_append_slot();
  // Overwrites slot `pos`'s rows (0x5a bytes, scale -1) at the checked layers, so a check after
  // the next append run sees only what that run stored. Appends the overwritten rows and scales
  // to `rows` and `scales` when given.
  void overwrite_slot(std::int64_t pos, std::vector<unsigned char>* rows, std::vector<float>* scales);
  // Fails *v if layer's appended rows do not decode to the new token.
  void check_appended_rows(std::int32_t layer, Validation* v) const;
  CacheView view() const;
  void stream(const Buffer& buffer);

  DecodeConfig config_;
  bool inject_fault_ = false;
  std::shared_ptr<ThreadPool> pool_;
  std::unique_ptr<DecodeFixture> child_;  // hybrid: the global layers
  std::map<Family, Validation> combined_;  // hybrid: both parts' validation
  CacheGeometry geometry_;
  Buffer cache_buffer_;
  Buffer flush_buffer_;    // cold: >= 2x LLC
  Buffer weight_buffer_;   // weights: layers x per-layer weight bytes
  std::unique_ptr<ParallelDecode> decode_;
  std::unique_ptr<CounterSet> counters_;
  std::map<Family, std::vector<CounterReading>> readings_;
  Validation validation_;
  // prefill_copy's fp32 sources, [layer][kv_head][tokens][head_dim] each, allocated on first
  // use like the cache (placement, huge pages) and first touched by the worker that copies them.
  const Topology* topo_ = nullptr;
  Placement placement_{};
  Buffer prefill_k_, prefill_v_;
  std::vector<std::int32_t> checked_layers_;
  std::optional<Validation> prefill_validation_;
  std::optional<Validation> append_validation_;
  std::optional<Validation> memcpy_validation_;
  std::optional<Validation> streaming_validation_;
  std::string pu_list_;
  double fill_seconds_ = 0, validation_seconds_ = 0;
  volatile std::uint64_t sink_ = 0;
};

}  // namespace kvb
