// kvbench run: expand and validate the sweep, measure the ceilings, then run every
// configuration through Google Benchmark, writing one CSV row per repetition and aggregate.
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <iostream>
#include <map>
#include <memory>
#include <optional>
#include <set>

#include <benchmark/benchmark.h>
#include <boost/program_options.hpp>

#include "benchmarks/commands.h"
#include "benchmarks/decode_fixture.h"
#include "benchmarks/existing_results.h"
#include "benchmarks/forwarding_reporter.h"
#include "benchmarks/machine_probe.h"
#include "benchmarks/option_parser.h"
#include "benchmarks/option_suggestion.h"
#include "benchmarks/progress.h"
#include "benchmarks/result_rows.h"
#include "benchmarks/run_options.h"
#include "benchmarks/run_summary.h"
#include "benchmarks/shape_options.h"
#include "benchmarks/usage_error.h"
#include "benchmarks/variant_runner.h"
#include "benchmarks/worker_waits.h"
#include "harness/ceilings.h"
#include "harness/counters.h"
#include "harness/csv_writer.h"
#include "harness/error.h"
#include "harness/metadata.h"
#include "harness/pin_policy.h"
#include "harness/thread_pool.h"
#include "harness/topology.h"

namespace kvb {
namespace po = boost::program_options;
namespace fs = std::filesystem;

namespace {

// "\n  <label>: <reason>" for every configuration the sweep rejected.
std::string rejected_list(const SweepPlan& plan) {
  std::string list;
  for (const RejectedConfig& r : plan.rejected) list += "\n  " + r.config.label() + ": " + r.reason;
  return list;
}

// Without --skip-invalid, one impossible configuration stops the run before anything is measured.
void refuse_rejected(const SweepPlan& plan) {
  if (plan.rejected.empty()) return;
  throw UsageError(std::to_string(plan.rejected.size()) +
                   " invalid configuration(s) (use --skip-invalid to drop them):" + rejected_list(plan));
}

// The PUs the configurations' thread counts and pins bind to; an impossible pin is a usage error.
std::set<unsigned> pus_used(const Topology& topo, const std::vector<DecodeConfig>& configs) {
  std::set<unsigned> used;
  for (const DecodeConfig& c : configs) {
    try {
      for (unsigned pu : choose_pus(topo, c.threads, parse_pin_policy(c.pin))) used.insert(pu);
    } catch (const HarnessError& e) {
      throw UsageError(c.label() + ": " + e.what());
    }
  }
  return used;
}

// Decode-type benchmarks produce a token per unit (tokens_per_s) and work on the KV cache.
bool decode_type(Family f) { return f == Family::kDecodeStep || f == Family::kAttention; }

// Families whose traffic is the cache's rows read, as the read ceiling's is (the copies among the
// variants move reads and writes, and recompute's GEMM reads weights it computes on).
bool streams_reads(Family f) {
  return decode_type(f) || f == Family::kPagedAttention || f == Family::kBatchedAttention ||
         f == Family::kChunkedAttention;
}

// Families whose traffic is a copy: fp32 rows read, cache rows written.
bool writes_cache(Family f) {
  return f == Family::kAppend || f == Family::kAppendMemcpy || f == Family::kAppendStreaming ||
         f == Family::kPrefillCopy;
}

// Families that write one token per unit: the only ones cache_state fresh changes.
bool appends_per_step(Family f) {
  return f == Family::kAppend || f == Family::kAppendMemcpy || f == Family::kAppendStreaming;
}

// Each variant family sweeps its own axes; the others run once per configuration.
std::vector<VariantParams> variant_points(Family f, const RunSettings& s) {
  std::vector<VariantParams> points;
  VariantParams p;
  switch (f) {
    case Family::kPagedAttention:
      for (std::int64_t bs : s.block_sizes)
        for (const std::string& order : s.block_orders) {
          p.block_size = bs;
          p.block_order = order;
          points.push_back(p);
        }
      break;
    case Family::kBatchedAttention:
      for (std::int64_t b : s.batches)
        for (const std::string& lens : s.seq_lens) {
          p.batch = b;
          p.seq_lens = lens;
          points.push_back(p);
        }
      break;
    case Family::kCacheClone:
      for (std::int64_t b : s.batches) {
        p.batch = b;
        points.push_back(p);
      }
      break;
    case Family::kChunkedAttention:
      for (std::int64_t tq : s.query_tokens) {
        p.query_tokens = tq;
        points.push_back(p);
      }
      break;
    default: points.push_back(p);
  }
  return points;
}

// "/bs:16/contiguous", "/B:4/ragged", "/tq:8": the variant axes in a benchmark name or label.
std::string variant_suffix(Family f, const VariantParams& p, char sep) {
  std::string out;
  const auto add = [&](const std::string& item) { out += sep + item; };
  if (f == Family::kPagedAttention) {
    add("bs:" + std::to_string(p.block_size));
    add(p.block_order);
  }
  if (f == Family::kBatchedAttention || f == Family::kCacheClone) add("B:" + std::to_string(p.batch));
  if (f == Family::kBatchedAttention) add(p.seq_lens);
  if (f == Family::kChunkedAttention) add("tq:" + std::to_string(p.query_tokens));
  return out;
}

void append_counters(CsvRow* row, const std::vector<CounterReading>& readings) {
  for (const CounterReading& r : readings) {
    row->emplace_back("c:" + r.event, r.value ? csv_number(*r.value) : "");
    row->emplace_back("c:" + r.event + ":status", counter_status_name(r.status));
  }
}

// One registered benchmark: which configuration and family it measures.
struct Entry {
  std::size_t config = 0;
  Family family = Family::kDecodeStep;
  VariantParams params;  // variant families only
};

// Best of 3 repetitions of at least `min_seconds` each, on `placement`: every ceiling of a run
// (0.1 s at its start and end), and shorter ones in a benchmark's brackets.
CeilingOptions ceiling_options(const Placement& placement, double min_seconds) {
  CeilingOptions opt;
  opt.placement = placement;
  opt.min_seconds = min_seconds;
  opt.repetitions = 3;
  return opt;
}

// Shared state of a run: the fixture of the configuration being measured (one at a time, so
// memory holds one cache), results for the summary, failures.
struct RunState {
  const Topology* topo = nullptr;
  const RunSettings* settings = nullptr;
  const RunMetadata* meta = nullptr;
  std::vector<DecodeConfig> configs;
  std::vector<Entry> entries;
  std::map<std::string, std::size_t> entry_by_name;
  std::vector<std::string> counter_events;
  std::map<std::string, double> read_ceiling;  // threads|pin|level
  std::map<std::string, double> copy_ceiling;  // threads|pin|level
  Placement placement;
  CsvWriter* writer = nullptr;
  std::unique_ptr<Progress> progress;

  std::optional<std::size_t> fixture_config;
  std::unique_ptr<DecodeFixture> fixture;
  std::string fixture_error;
  // The variant benchmark being measured (built on the fixture, one at a time).
  std::optional<std::size_t> variant_entry;
  std::unique_ptr<VariantRunner> variant;
  int started = 0;
  std::set<std::size_t> entries_started;
  std::set<std::size_t> reported_invalid;
  bool counter_notice_shown = false;

  // --ceiling-bracket: each entry's own ceiling right before its first repetition and right
  // after its last, measured on buffers kept for the whole run per threads|pin|level; and a
  // short FMA burst on the entry's workers at the same two moments (GFLOP/s), so a core that
  // slowed (a clock drop, a neighbour on the sibling hardware thread) shows even where the
  // memory held: a kernel can run at half speed under a steady bandwidth bracket. An entry of 2
  // or more workers also has the per-layer barrier's crossing on its own pool at both moments
  // (ns): the host can move the vCPUs between the entries of one run.
  struct Bracket {
    std::optional<double> before, after;
    std::optional<double> core_before, core_after;
    // Of the two FMA bursts (2+ workers), the lower slowest-worker share and that worker's PU.
    std::optional<double> core_slowest_pct;
    std::optional<unsigned> core_slowest_pu;
    std::optional<double> barrier_before, barrier_after;
  };
  std::map<std::size_t, Bracket> brackets;  // by entry
  std::map<std::string, std::unique_ptr<CeilingBuffer>> bracket_buffers;

  int invalid = 0, errors = 0;
  std::map<std::size_t, RunSummaryLine> summary;  // by entry

  DecodeFixture* fixture_for(std::size_t entry_index) {
    const Entry& e = entries[entry_index];
    if (entries_started.insert(entry_index).second) {
      progress->start_item(started++, std::string(family_name(e.family)) + " " +
                                          configs[e.config].label());
    }
    if (fixture_config != e.config) {
      variant.reset();
      variant_entry.reset();
      fixture.reset();
      fixture_error.clear();
      fixture_config = e.config;
      try {
        const auto t0 = std::chrono::steady_clock::now();
        fixture = std::make_unique<DecodeFixture>(*topo, configs[e.config], placement,
                                                  meta->llc_bytes, counter_events,
                                                  settings->validate_layers,
                                                  settings->inject_fault);
        std::fprintf(stderr, "  setup %.1f s (fill %.1f s, validation %.1f s), max_rel_err %.2g\n",
                     std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count(),
                     fixture->fill_seconds(), fixture->validation_seconds(),
                     fixture->validation(Family::kDecodeStep).max_rel_err);
        if (!counter_notice_shown) {
          counter_notice_shown = true;
          if (const std::string notice = fixture->counter_notice(); !notice.empty()) {
            std::fprintf(stderr, "kvbench: counters: %s\n", notice.c_str());
          }
        }
      } catch (const std::exception& ex) {
        fixture.reset();
        fixture_error = ex.what();
      }
    }
    DecodeFixture* f = nullptr;
    if (fixture && is_variant_family(e.family)) {
      f = variant_for(entry_index);
    } else {
      if (fixture && reported_invalid.insert(entry_index).second) {
        try {
          const Validation& v = fixture->validation(e.family);  // prefill_copy checks here
          if (!v.valid) {
            std::fprintf(stderr, "kvbench: VALIDATION FAILED for %s %s: %s\n", family_name(e.family),
                         configs[e.config].label().c_str(), v.detail.c_str());
          }
        } catch (const std::exception& ex) {
          fixture_error = ex.what();
          return nullptr;
        }
      }
      f = fixture.get();
    }
    // Google Benchmark calls in here once per repetition (and per iteration-count trial): the
    // first call is right before the entry's first repetition. Its trial runs re-warm the
    // caches the bracket just swept before any timing that counts.
    if (f && settings->ceiling_bracket && !brackets.count(entry_index)) {
      Bracket& b = brackets[entry_index];
      b.before = bracket_ceiling(entry_index, "before");
      b.core_before = bracket_core(entry_index, "before", b);
      b.barrier_before = bracket_barrier(entry_index, "before");
    }
    return f;
  }

  // What an entry's rows are held against: the ceiling kind, the thread count of its ceiling
  // group (single-threaded families: 1, on worker 0) and the level where its data lives.
  struct CeilingTarget {
    CeilingKind kind = CeilingKind::kRead;
    bool one_thread = false;
    int threads = 0;
    std::vector<unsigned> pus;
    std::string level;
    std::int64_t working_set = 0;
  };
  CeilingTarget ceiling_target(std::size_t entry_index) const {
    const Entry& e = entries[entry_index];
    const DecodeConfig& c = configs[e.config];
    const Cost cost = cost_of(entry_index);
    CeilingTarget t;
    // A fresh append's slots walk the whole cache: its lines come from where the cache lives.
    t.working_set = is_variant_family(e.family) ? variant->working_set_bytes()
                    : decode_type(e.family) || c.cache_state == CacheState::kFresh ? c.kv_bytes()
                                                : cost.bytes_read + cost.bytes_written;
    t.pus = fixture->pus();
    t.one_thread = runs_single_threaded(e.family) && !t.pus.empty();
    if (t.one_thread) t.pus.resize(1);  // worker 0 (the calling thread) alone
    t.threads = t.one_thread ? 1 : c.threads;
    // Where the data is when a step starts: cold flushed it to DRAM; weights streamed the
    // model's weights through the caches, so KV stays cached only if both fit together.
    std::int64_t resident = t.working_set;
    if (c.cache_state == CacheState::kWeights) resident += c.shape.layers * c.weight_bytes_per_layer();
    t.level = c.cache_state == CacheState::kCold
                  ? "DRAM"
                  : ws_level_for(resident, topo->cache_bytes_for(1, t.pus),
                                 topo->cache_bytes_for(2, t.pus), topo->llc_bytes_for(t.pus));
    // Write families (read + write traffic) are held against the copy ceiling, which counts
    // both the same way; the rest against the read ceiling.
    t.kind = writes_cache(e.family) ? CeilingKind::kCopy : CeilingKind::kRead;
    return t;
  }

  // The entry's own ceiling, now, on the fixture's pool; nullopt (with a warning) if it cannot
  // be measured. Short: best of 3 x 0.05 s, on a buffer allocated and first-touched once per
  // threads|pin|level, so the bracket costs a fraction of the benchmark it brackets.
  std::optional<double> bracket_ceiling(std::size_t entry_index, const char* when) {
    const Entry& e = entries[entry_index];
    const DecodeConfig& c = configs[e.config];
    try {
      const auto t0 = std::chrono::steady_clock::now();
      const CeilingTarget t = ceiling_target(entry_index);
      std::unique_ptr<CeilingBuffer>& buffer =
          bracket_buffers[ceiling_group_key(t.threads, c.pin) + "|" + t.level];
      if (!buffer) {
        // Sized as the start-of-run ceilings size it for this thread group.
        const std::vector<unsigned> group_pus =
            t.one_thread ? t.pus : fixture->pool().bound_pus();
        for (const WorkingSet& ws : ceiling_working_sets(*topo, group_pus, t.threads)) {
          if (ws.level == t.level) {
            buffer = std::make_unique<CeilingBuffer>(fixture->pool(), *topo, ws, t.threads,
                                                     placement);
          }
        }
        if (!buffer) throw HarnessError("no " + t.level + " working set for the ceilings");
      }
      const auto t1 = std::chrono::steady_clock::now();
      const CeilingResult r =
          measure_bandwidth(fixture->pool(), t.kind, *buffer, ceiling_options(placement, 0.05));
      const auto t2 = std::chrono::steady_clock::now();
      const std::string loops = read_loops_text(r);
      std::fprintf(stderr, "  ceiling bracket %s: %s %s %d thread(s) %.2f GB/s (%s%s%.2f s",
                   when, ceiling_benchmark_name(t.kind), t.level.c_str(), t.threads, r.gbps, loops.c_str(),
                   loops.empty() ? "" : "; ", std::chrono::duration<double>(t2 - t1).count());
      if (t1 - t0 > std::chrono::milliseconds(10)) {
        std::fprintf(stderr, ", buffer of %lld bytes set up in %.2f s",
                     static_cast<long long>(buffer->bytes()),
                     std::chrono::duration<double>(t1 - t0).count());
      }
      std::fprintf(stderr, ")\n");
      return r.gbps;
    } catch (const std::exception& ex) {
      std::fprintf(stderr, "kvbench: --ceiling-bracket: %s %s: %s (its rows keep the run's ceiling)\n",
                   family_name(e.family), c.label().c_str(), ex.what());
      return std::nullopt;
    }
  }

  // A short measurement on the entry's workers for its bracket; one that fails warns, naming
  // `what`, and leaves its columns empty.
  template <class Measure>
  std::optional<double> bracket_or_warn(std::size_t entry_index, const char* what, Measure measure) {
    try {
      return measure(ceiling_target(entry_index));
    } catch (const std::exception& ex) {
      std::fprintf(stderr, "kvbench: --ceiling-bracket: %s %s: %s: %s (its rows leave it empty)\n",
                   family_name(entries[entry_index].family), configs[entries[entry_index].config].label().c_str(),
                   what, ex.what());
      return std::nullopt;
    }
  }

  // FP32 FMA throughput of the entry's workers now (GFLOP/s), as the run's ceiling_fma measures
  // it but short (best of 3 x 0.02 s); keeps the burst's slowest worker in `b` where it ran
  // further below the fastest than the other end's.
  std::optional<double> bracket_core(std::size_t entry_index, const char* when, Bracket& b) {
    return bracket_or_warn(entry_index, "FMA burst", [&](const CeilingTarget& t) -> std::optional<double> {
      const CeilingResult r = measure_fma(fixture->pool(), ceiling_options(placement, 0.02), t.threads);
      const std::vector<unsigned>& pus = fixture->pool().bound_pus();  // 2+ workers: the pool's first
      const std::string slowest = slowest_worker_text(r, pus);
      std::fprintf(stderr, "  core bracket %s: ceiling_fma %d thread(s) %.1f GFLOP/s%s%s\n", when, t.threads, r.gflops,
                   slowest.empty() ? "" : ", ", slowest.c_str());
      if (r.slowest_worker >= 0 && (!b.core_slowest_pct || r.slowest_worker_pct < *b.core_slowest_pct)) {
        b.core_slowest_pct = r.slowest_worker_pct;
        b.core_slowest_pu = slowest_worker_pu(r, pus);
      }
      return r.gflops;
    });
  }

  // One crossing of the per-layer barrier by the entry's workers now (ns), as the run's
  // ceiling_barrier measures it but short (best of 3 x 0.02 s); nullopt for an entry of one worker.
  std::optional<double> bracket_barrier(std::size_t entry_index, const char* when) {
    return bracket_or_warn(entry_index, "barrier crossing", [&](const CeilingTarget& t) -> std::optional<double> {
      if (t.one_thread || t.threads < 2) return std::nullopt;
      const CeilingResult r = measure_barrier(fixture->pool(), ceiling_options(placement, 0.02));
      std::fprintf(stderr, "  barrier bracket %s: %d threads %.0f ns per crossing\n", when, t.threads, r.ns_per_sweep);
      return r.ns_per_sweep;
    });
  }

  // Builds (and validates) the variant runner of a variant entry on the current fixture.
  DecodeFixture* variant_for(std::size_t entry_index) {
    const Entry& e = entries[entry_index];
    if (variant_entry == entry_index) return variant ? fixture.get() : nullptr;
    variant.reset();
    variant_entry = entry_index;
    try {
      VariantRunner::Source source;
      source.cache = fixture->cache_view();
      source.context = fixture->context();
      for (std::int64_t l = 0; l < configs[e.config].shape.layers; ++l) {
        source.queries.push_back(fixture->query(static_cast<std::int32_t>(l)));
      }
      source.hidden = configs[e.config].shape.hidden_size;
      const auto t0 = std::chrono::steady_clock::now();
      variant = std::make_unique<VariantRunner>(*topo, placement, fixture->pool(), source, e.family,
                                                e.params, settings->validate_layers,
                                                settings->inject_fault);
      const Validation& v = variant->validation();
      std::fprintf(stderr, "  %s setup %.1f s, max_rel_err %.2g\n", family_name(e.family),
                   std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count(),
                   v.max_rel_err);
      if (!v.valid) {
        std::fprintf(stderr, "kvbench: VALIDATION FAILED for %s%s %s: %s\n", family_name(e.family),
                     variant_suffix(e.family, e.params, ' ').c_str(),
                     configs[e.config].label().c_str(), v.detail.c_str());
      }
    } catch (const std::exception& ex) {
      variant.reset();
      fixture_error = ex.what();
      return nullptr;
    }
    return fixture.get();
  }

  const Validation& validation_of(std::size_t entry_index) {
    const Entry& e = entries[entry_index];
    return is_variant_family(e.family) ? variant->validation() : fixture->validation(e.family);
  }

  // The kernels' cost of one unit, plus the streamed weights when they are timed.
  Cost cost_of(std::size_t entry_index) const {
    const Entry& e = entries[entry_index];
    const DecodeConfig& c = configs[e.config];
    Cost cost = is_variant_family(e.family) ? variant->cost() : fixture->cost(e.family);
    if (settings->time_weights && c.cache_state == CacheState::kWeights) {
      cost.bytes_read += c.shape.layers * c.weight_bytes_per_layer();
    }
    return cost;
  }

  void write_row(const benchmark::BenchmarkReporter::Run& run) {
    const auto it = entry_by_name.find(run.run_name.function_name);
    if (it == entry_by_name.end()) return;
    const std::size_t index = it->second;
    const Entry& e = entries[index];
    const DecodeConfig& c = configs[e.config];
    if (run.error_occurred) {
      ++errors;
      std::fprintf(stderr, "kvbench: %s failed: %s\n", run.run_name.function_name.c_str(),
                   run.error_message.c_str());
      return;
    }
    if (!fixture || fixture_config != e.config) return;  // cannot happen: reported right after
    const auto counter = [&](const char* name) {
      const auto c_it = run.counters.find(name);
      return c_it == run.counters.end() ? 0.0 : c_it->second.value;
    };
    Measurement m;
    if (run.run_type == benchmark::BenchmarkReporter::Run::RT_Aggregate) {
      m.aggregate = run.aggregate_name;
      m.repetition = -1;
      m.ns_per_step = run.aggregate_unit == benchmark::kPercentage ? run.real_accumulated_time
                                                                   : run.GetAdjustedRealTime();
    } else {
      m.repetition = run.repetition_index;
      m.ns_per_step = run.GetAdjustedRealTime();
    }
    m.iterations = run.iterations;
    m.gbps = counter("gbps");
    m.gflops = counter("gflops");
    if (decode_type(e.family) || run.counters.count("tokens_per_s")) {
      m.tokens_per_s = counter("tokens_per_s");
    }
    const bool is_variant = is_variant_family(e.family);
    if (is_variant && (!variant || variant_entry != index)) return;  // cannot happen either

    const Cost cost = cost_of(index);
    const CeilingTarget target = ceiling_target(index);
    const std::int64_t ws = target.working_set;
    const std::string& level = target.level;
    const bool one_thread = target.one_thread;
    const std::map<std::string, double>& ceilings =
        target.kind == CeilingKind::kCopy ? copy_ceiling : read_ceiling;
    std::optional<double> ceiling;
    if (const auto c_it = ceilings.find(ceiling_group_key(target.threads, c.pin) + "|" + level);
        c_it != ceilings.end()) {
      ceiling = c_it->second;
    }
    // An entry's first row is reported after its last repetition: the bracket closes here.
    std::optional<Bracket> bracket;
    if (const auto b_it = brackets.find(index); b_it != brackets.end()) {
      if (b_it->second.before && !b_it->second.after) {
        b_it->second.after = bracket_ceiling(index, "after");
        b_it->second.core_after = bracket_core(index, "after", b_it->second);
        b_it->second.barrier_after = bracket_barrier(index, "after");
      }
      if (b_it->second.before && b_it->second.after) {
        bracket = b_it->second;
        // The conservative one: a ceiling that dropped while the benchmark ran must not make
        // the benchmark look more efficient.
        ceiling = std::max(*bracket->before, *bracket->after);
      }
    }
    const Validation& v = validation_of(index);

    CsvRow row = metadata_columns(*meta);
    for (auto& cell : config_columns(c, e.family, e.params)) row.push_back(std::move(cell));
    std::string pu_list = fixture->pu_list();
    if (one_thread) pu_list = pu_list.substr(0, pu_list.find('+'));
    row.emplace_back("pu_list", pu_list);
    row.emplace_back("placement", placement_name(placement));
    for (auto& cell : thp_columns(fixture->thp())) row.push_back(std::move(cell));
    row.emplace_back("ws_level", level);
    for (auto& cell : measurement_columns(m, cost, ws, meta->llc_bytes, ceiling)) {
      row.push_back(std::move(cell));
    }
    if (bracket) {
      row.emplace_back("ceiling_before_gbps", csv_number(*bracket->before));
      row.emplace_back("ceiling_after_gbps", csv_number(*bracket->after));
      if (bracket->core_before && bracket->core_after) {
        row.emplace_back("core_before_gflops", csv_number(*bracket->core_before));
        row.emplace_back("core_after_gflops", csv_number(*bracket->core_after));
        if (bracket->core_slowest_pct) {
          row.emplace_back("core_slowest_pct", csv_number(*bracket->core_slowest_pct));
          if (bracket->core_slowest_pu) row.emplace_back("core_slowest_pu", std::to_string(*bracket->core_slowest_pu));
        }
      }
      if (bracket->barrier_before && bracket->barrier_after) {
        row.emplace_back("barrier_before_ns", csv_number(*bracket->barrier_before));
        row.emplace_back("barrier_after_ns", csv_number(*bracket->barrier_after));
      }
    }
    std::optional<double> barrier_wait_pct;  // decode rows at 2+ threads (benchmark_body)
    if (const auto w_it = run.counters.find("barrier_wait_pct"); w_it != run.counters.end()) {
      barrier_wait_pct = w_it->second.value;
      row.emplace_back("barrier_wait_pct", csv_number(*barrier_wait_pct));
    }
    // The worker the others waited for most: per repetition, and from the median (mean) of each
    // worker's share; a spread (stddev, cv) of shares names no worker.
    std::optional<SlowestWorker> slowest;
    if (m.aggregate == "none" || m.aggregate == "median" || m.aggregate == "mean") slowest = slowest_worker(run.counters);
    std::string slowest_note;
    if (slowest) {
      const std::vector<unsigned>& pus = fixture->pus();  // empty when the pool is not pinned
      const std::string who = static_cast<std::size_t>(slowest->worker) < pus.size()
                                  ? std::to_string(pus[static_cast<std::size_t>(slowest->worker)])
                                  : std::string();
      if (!who.empty()) row.emplace_back("barrier_slowest_pu", who);
      row.emplace_back("barrier_slowest_pct", csv_number(slowest->held_pct));
      char note[64];
      std::snprintf(note, sizeof note, ", %.0f%% of it for %s %s", slowest->held_pct, who.empty() ? "worker" : "PU",
                    who.empty() ? std::to_string(slowest->worker).c_str() : who.c_str());
      slowest_note = note;
    }
    row.emplace_back("valid", v.valid ? "1" : "0");
    row.emplace_back("max_rel_err", csv_number(v.max_rel_err));
    if (is_variant) {
      // The variant kernels feed no SDE events and the pool's counters are not read around
      // them: say so rather than leave a silent gap.
      for (const std::string& event : counter_events) {
        row.emplace_back("c:" + event, "");
        row.emplace_back("c:" + event + ":status", "not_read");
      }
    } else {
      append_counters(&row, fixture->counter_readings(e.family));
    }
    writer->write(row);

    if (m.aggregate == "median" || (m.aggregate == "none" && !summary.count(index))) {
      RunSummaryLine& s = summary[index];
      s.label = std::string(family_name(e.family)) + variant_suffix(e.family, e.params, ' ') + " " +
                c.label() + " [" + level + "]";
      s.gbps = m.gbps;
      s.pct = ceiling ? std::optional<double>(100.0 * m.gbps / *ceiling) : std::nullopt;
      s.streams_like_its_ceiling = target.kind == CeilingKind::kRead && streams_reads(e.family);
      if (bracket) {
        s.ceiling_before = bracket->before;
        s.ceiling_after = bracket->after;
        s.core_before = bracket->core_before;
        s.core_after = bracket->core_after;
        s.crossing_before = bracket->barrier_before;
        s.crossing_after = bracket->barrier_after;
      }
      s.barrier_wait_pct = barrier_wait_pct;
      s.barrier_slowest = slowest_note;
      s.valid = v.valid;
    }
    if (m.aggregate == "none" && m.repetition == 0 && !v.valid) ++invalid;
  }
};

void benchmark_body(RunState* state, std::size_t entry_index, benchmark::State& st) {
  DecodeFixture* f = state->fixture_for(entry_index);
  if (f == nullptr) {
    st.SkipWithError(state->fixture_error.c_str());
    for (auto _ : st) {
    }
    return;
  }
  const Family family = state->entries[entry_index].family;
  VariantRunner* variant = is_variant_family(family) ? state->variant.get() : nullptr;
  double seconds = 0;
  const bool timed_weights = state->settings->time_weights &&
                             state->configs[state->entries[entry_index].config].cache_state ==
                                 CacheState::kWeights;
  const ParallelDecode::BarrierWait wait_before = f->barrier_wait();
  for (auto _ : st) {
    if (!timed_weights) f->prepare_step();  // untimed: manual time covers the step alone
    const auto t0 = std::chrono::steady_clock::now();
    if (timed_weights) f->prepare_step();
    if (variant) {
      variant->run();
    } else {
      f->run(family);
    }
    const auto t1 = std::chrono::steady_clock::now();
    const double s = std::chrono::duration<double>(t1 - t0).count();
    st.SetIterationTime(s);
    seconds += s;
  }
  const Cost cost = state->cost_of(entry_index);
  const double steps = static_cast<double>(st.iterations());
  if (seconds > 0) {
    st.counters["gbps"] =
        static_cast<double>(cost.bytes_read + cost.bytes_written) * steps / seconds * 1e-9;
    st.counters["gflops"] = static_cast<double>(cost.flops) * steps / seconds * 1e-9;
    if (decode_type(family)) {
      st.counters["tokens_per_s"] = steps / seconds;
    } else if (variant && variant->tokens_per_unit() > 0) {
      st.counters["tokens_per_s"] = steps * static_cast<double>(variant->tokens_per_unit()) / seconds;
    }
  }
  // Only the executor's own decode and attention units wait at barriers (several workers).
  if (!variant) set_barrier_wait_counters(wait_before, f->barrier_wait(), &st.counters);
}

std::string benchmark_name(const DecodeConfig& c, Family f, const VariantParams& p) {
  std::string name = std::string(family_name(f)) + variant_suffix(f, p, '/') + "/" + c.shape.model + "/" + dtype_name(c.dtype) +
                     "/" + layout_name(c.layout) + "/L:" + std::to_string(c.shape.layers) +
                     "/qh:" + std::to_string(c.shape.q_heads) + "/kvh:" +
                     std::to_string(c.shape.kv_heads) + "/d:" + std::to_string(c.shape.head_dim) +
                     "/ctx:" + std::to_string(c.shape.context);
  if (c.shape.window > 0) name += "/W:" + std::to_string(c.shape.window);
  if (!c.sliding_pattern().empty()) name += "/SG:" + c.sliding_pattern();
  name += "/t:" + std::to_string(runs_single_threaded(f) ? 1 : c.threads) + "/" + c.pin + "/" + cache_state_name(c.cache_state);
  return name;
}

// One ceiling row of a (threads, pin) group, `name` its benchmark; a bandwidth row carries the
// group's read ceiling of its level where measured, and an FMA row of 2+ workers its slowest
// worker (as a bracket's bursts do): a ceiling taken with one worker slowed is a slowed core's.
void write_ceiling_row(const CeilingResult& r, const char* name, int threads, const std::string& pin,
                       const std::string& pu_list, const std::vector<unsigned>& bound_pus, const RunMetadata& meta,
                       const Placement& placement,
                       const std::vector<std::string>& events, const std::map<std::string, double>& read_ceiling,
                       CsvWriter* writer) {
  CsvRow row = metadata_columns(meta);
  row.emplace_back("benchmark", name);
  row.emplace_back("batch", "1");
  row.emplace_back("threads", std::to_string(threads));
  row.emplace_back("pin", pin);
  row.emplace_back("pu_list", pu_list);
  row.emplace_back("placement", placement_name(placement));
  const bool buffered = r.kind != CeilingKind::kFma && r.kind != CeilingKind::kBarrier;
  if (buffered)
    for (auto& cell : thp_columns(r.thp)) row.push_back(std::move(cell));
  row.emplace_back("ws_level", r.level);
  Measurement m;
  m.iterations = r.iterations;
  m.ns_per_step = r.ns_per_sweep;
  m.gbps = r.gbps;
  m.gflops = r.gflops;
  Cost cost;
  cost.bytes_read = r.bytes_read;
  cost.bytes_written = r.bytes_written;
  cost.flops = r.flops;
  std::optional<double> ceiling;
  if (const auto it = read_ceiling.find(ceiling_group_key(threads, pin) + "|" + r.level); it != read_ceiling.end()) {
    ceiling = it->second;
  }
  for (auto& cell :
       measurement_columns(m, cost, r.working_set_bytes, meta.llc_bytes, buffered ? ceiling : std::nullopt)) {
    row.push_back(std::move(cell));
  }
  if (r.kind == CeilingKind::kFma && r.slowest_worker >= 0) {
    row.emplace_back("core_slowest_pct", csv_number(r.slowest_worker_pct));
    if (const auto pu = slowest_worker_pu(r, bound_pus)) row.emplace_back("core_slowest_pu", std::to_string(*pu));
  }
  if (r.kind == CeilingKind::kRead) {
    row.emplace_back("read_plain_gbps", csv_number(r.plain_gbps));
    if (r.window_gbps > 0) row.emplace_back("read_window_gbps", csv_number(r.window_gbps));
    if (r.two_streams_gbps > 0) row.emplace_back("read_two_streams_gbps", csv_number(r.two_streams_gbps));
    if (r.four_streams_gbps > 0) row.emplace_back("read_four_streams_gbps", csv_number(r.four_streams_gbps));
  }
  row.emplace_back("valid", "1");
  // Counters are not read around ceilings: say so rather than leave a silent gap.
  for (const std::string& e : events) {
    row.emplace_back("c:" + e, "");
    row.emplace_back("c:" + e + ":status", "not_read");
  }
  writer->write(row);
}

// The FMA ceiling's bursts on all of `pool`'s workers, the fastest kept (measure_fma_bursts),
// every burst on stderr as `name`: the row keeps the fastest, and the others say what a single one
// read.
CeilingResult fma_ceiling_bursts(ThreadPool& pool, const CeilingOptions& opt, const char* name) {
  auto print = [&](const CeilingResult& b, const char* kept) {
    const std::string slowest = slowest_worker_text(b, pool.bound_pus());
    std::fprintf(stderr, "ceiling %s (%d threads): %.1f GFLOP/s%s%s%s\n", name, pool.size(), b.gflops, kept,
                 slowest.empty() ? "" : ", ", slowest.c_str());
  };
  const std::vector<CeilingResult> bursts = measure_fma_bursts(pool, opt);
  for (const CeilingResult& b : bursts) print(b, "");
  CeilingResult kept = fastest_burst(bursts);
  if (bursts.size() > 1) print(kept, " kept");
  return kept;
}

// What a run measured of a group's ceilings that it measures again at its end.
struct StartCeilings {
  double crossing_ns = 0;             // ceiling_barrier, which every set measures
  std::optional<double> fma_gflops;  // ceiling_fma, with --ceilings all
};

// Measures the ceilings of one (threads, pin) group and writes their rows; returns the barrier's
// crossing and, where measured, the FMA ceiling. With `keep` (--ceiling-bracket) every kind of a
// level is measured on one buffer, which is then kept there under "threads|pin|level" for the brackets:
// a DRAM buffer is touched once, not once per kind and again for the first bracket.
StartCeilings measure_ceilings(const Topology& topo, int threads, const std::string& pin,
                               const RunSettings& settings, const RunMetadata& meta, const Placement& placement,
                               const std::vector<std::string>& events, CsvWriter* writer,
                               std::map<std::string, double>* read_ceiling,
                               std::map<std::string, double>* copy_ceiling,
                               std::map<std::string, std::unique_ptr<CeilingBuffer>>* keep) {
  ThreadPool pool(topo, threads, parse_pin_policy(pin));
  const CeilingOptions opt = ceiling_options(placement, 0.1);
  const std::string pu_list = pool.pu_list();
  std::vector<CeilingKind> kinds;  // per cache level; --ceilings barrier measures none
  if (settings.ceilings == CeilingSet::kRead) kinds = {CeilingKind::kRead};
  if (settings.ceilings == CeilingSet::kAll) {
    kinds = {CeilingKind::kRead, CeilingKind::kWrite, CeilingKind::kWriteNT, CeilingKind::kCopy};
  }
  std::vector<CeilingResult> results;
  const std::vector<WorkingSet> levels =
      kinds.empty() ? std::vector<WorkingSet>{} : ceiling_working_sets(topo, pool.bound_pus(), threads);
  for (const WorkingSet& ws : levels) {
    std::unique_ptr<CeilingBuffer> buffer;
    if (keep) buffer = std::make_unique<CeilingBuffer>(pool, topo, ws, threads, placement);
    for (CeilingKind kind : kinds) {
      std::fprintf(stderr, "ceiling %s %s (%lld bytes, %d threads)\n",
                   ceiling_benchmark_name(kind), ws.level.c_str(),
                   static_cast<long long>(ws.bytes), threads);
      results.push_back(buffer ? measure_bandwidth(pool, kind, *buffer, opt)
                               : measure_bandwidth(pool, topo, kind, ws, opt));
      if (const std::string loops = read_loops_text(results.back()); !loops.empty())
        std::fprintf(stderr, "  %s\n", loops.c_str());
    }
    if (keep) (*keep)[ceiling_group_key(threads, pin) + "|" + ws.level] = std::move(buffer);
  }
  if (settings.ceilings == CeilingSet::kAll) {
    results.push_back(fma_ceiling_bursts(pool, opt, ceiling_benchmark_name(CeilingKind::kFma)));
  }
  // The per-layer barrier's floor, cheap beside the bandwidths: every set that has ceilings has it.
  std::fprintf(stderr, "ceiling %s (%d threads)\n", ceiling_benchmark_name(CeilingKind::kBarrier), threads);
  results.push_back(measure_barrier(pool, opt));
  for (const CeilingResult& r : results) {
    if (r.kind == CeilingKind::kRead) {
      (*read_ceiling)[ceiling_group_key(threads, pin) + "|" + r.level] = r.gbps;
    }
    if (r.kind == CeilingKind::kCopy) {
      (*copy_ceiling)[ceiling_group_key(threads, pin) + "|" + r.level] = r.gbps;
    }
  }
  StartCeilings start;
  for (const CeilingResult& r : results) {
    write_ceiling_row(r, ceiling_benchmark_name(r.kind), threads, pin, pu_list, pool.bound_pus(), meta, placement,
                      events, *read_ceiling, writer);
    if (r.kind == CeilingKind::kFma) start.fma_gflops = r.gflops;
  }
  start.crossing_ns = results.back().ns_per_sweep;
  return start;
}

// The barrier's crossing again once the run's benchmarks are done, on a pool pinned as the
// start's was, written as kBarrierEndBenchmark; returns it (ns).
double measure_barrier_end(const Topology& topo, int threads, const std::string& pin, const RunMetadata& meta,
                           const Placement& placement, const std::vector<std::string>& events,
                           const std::map<std::string, double>& read_ceiling, CsvWriter* writer) {
  ThreadPool pool(topo, threads, parse_pin_policy(pin));
  std::fprintf(stderr, "ceiling %s (%d threads)\n", kBarrierEndBenchmark, threads);
  const CeilingResult r = measure_barrier(pool, ceiling_options(placement, 0.1));
  write_ceiling_row(r, kBarrierEndBenchmark, threads, pin, pool.pu_list(), pool.bound_pus(), meta, placement, events,
                    read_ceiling, writer);
  return r.ns_per_sweep;
}

// The FMA ceiling's bursts again once the run's benchmarks are done, on a pool pinned as the
// start's was, written as kFmaEndBenchmark; returns its GFLOP/s.
double measure_fma_end(const Topology& topo, int threads, const std::string& pin, const RunMetadata& meta,
                       const Placement& placement, const std::vector<std::string>& events,
                       const std::map<std::string, double>& read_ceiling, CsvWriter* writer) {
  ThreadPool pool(topo, threads, parse_pin_policy(pin));
  const CeilingResult r = fma_ceiling_bursts(pool, ceiling_options(placement, 0.1), kFmaEndBenchmark);
  write_ceiling_row(r, kFmaEndBenchmark, threads, pin, pool.pu_list(), pool.bound_pus(), meta, placement, events,
                    read_ceiling, writer);
  return r.gflops;
}

// --llc, except that auto adds to a file (--resume, --append) with the LLC its rows were sized
// from: measured again, a knee that wanders across a power of two (13.3 MiB on the Zen 3 guest,
// 106.7 MiB on the EMR host) would change `--context auto` and the ceilings' working sets in the
// middle of a series, and a resumed run would find none of its configurations complete.
LlcSetting llc_setting_of_run(const Topology& topo, const RunSettings& settings) {
  std::error_code ec;
  if (settings.llc.policy != LlcPolicy::kAuto || !(settings.resume || settings.append) ||
      settings.out.empty() || !fs::exists(settings.out, ec))
    return settings.llc;
  const RunMetadata here = collect_metadata(topo, {});
  std::string note;
  const std::optional<LlcSetting> kept = llc_setting_of_file(
      read_recorded_llc(settings.out),
      machine_identity(here.cpu_vendor, here.cpu_model, here.cpu_signature, std::to_string(here.pus_total)),
      settings.out, &note);
  if (!note.empty()) std::fprintf(stderr, "kvbench: %s\n", note.c_str());
  return kept.value_or(settings.llc);
}

std::string default_out_path(const RunMetadata& meta) { return "results/" + meta.run_id + ".csv"; }

// A run killed while writing a row leaves a partial last line. Before appending to such a
// file, the fragment is moved (not deleted) to <path>.partial-<UTC time> and the file is cut
// back to its last complete row, so appended rows start on a line of their own.
void set_aside_partial_row(const std::string& path) {
  std::FILE* f = std::fopen(path.c_str(), "rb");
  if (f == nullptr) throw UsageError("cannot read '" + path + "'");
  std::string text;
  char chunk[1 << 16];
  std::size_t n;
  while ((n = std::fread(chunk, 1, sizeof chunk, f)) > 0) text.append(chunk, n);
  std::fclose(f);
  if (text.empty() || text.back() == '\n') return;
  const std::size_t keep = text.rfind('\n') == std::string::npos ? 0 : text.rfind('\n') + 1;
  if (keep == 0) {
    throw UsageError("'" + path + "' has no complete line (not a kvbench CSV?); nothing appended");
  }
  std::string stamp = utc_timestamp();
  for (char& c : stamp) {
    if (c == ':') c = '-';
  }
  const std::string aside = path + ".partial-" + stamp;
  std::FILE* out = std::fopen(aside.c_str(), "wbx");
  if (out == nullptr ||
      std::fwrite(text.data() + keep, 1, text.size() - keep, out) != text.size() - keep ||
      std::fclose(out) != 0) {
    throw UsageError("cannot save the partial last row of '" + path + "' to " + aside);
  }
  fs::resize_file(path, keep);
  std::fprintf(stderr, "kvbench: %s ended in a partial row (killed run?); moved it to %s\n",
               path.c_str(), aside.c_str());
}

}  // namespace

int run_main(const std::vector<std::string>& raw_args) {
  std::vector<std::string> args, gb_flags;
  split_benchmark_flags(raw_args, &args, &gb_flags);
  const po::options_description desc = run_options();
  bool has_source = false;
  for (const std::string& a : args) {
    for (const char* opt : {"--config", "--model", "--layers", "-h", "--help"}) {
      if (a == opt || a.rfind(std::string(opt) + "=", 0) == 0) has_source = true;
    }
  }
  if (!has_source) {
    args.insert(args.begin(), {"--config", "default"});  // configs/sweeps/default.ini
  }
  po::variables_map vm;
  parse_layered(args, desc, &vm);
  if (vm.count("help")) {
    std::cout << "kvbench run: decode KV-cache benchmarks over a sweep, results to CSV\n\n"
                 "Usage: kvbench run [--config SWEEP|FILE] [--model NAME] [options] "
                 "[--benchmark_* flags]\n"
                 "Without --config/--model/--layers the default sweep runs "
                 "(configs/sweeps/default.ini).\n"
                 "The command line overrides the config file, which overrides the preset.\n"
                 "Google Benchmark flags (--benchmark_filter, --benchmark_repetitions, "
                 "--benchmark_out=FILE.json, ...) pass through.\n"
              << desc << "\n";
    return 0;
  }
  const RunSettings settings = run_settings_from(vm, gb_flags);
  for (const std::string& note : settings.notes) std::fprintf(stderr, "kvbench: %s\n", note.c_str());
  // Google Benchmark parses its own flags now, so a bad one fails before anything runs. It
  // keeps argv[0], hence the static storage.
  static std::vector<std::string> gb_args;
  gb_args = {"kvbench"};
  gb_args.insert(gb_args.end(), settings.benchmark_flags.begin(), settings.benchmark_flags.end());
  static std::vector<char*> gb_argv;
  gb_argv.clear();
  for (std::string& a : gb_args) gb_argv.push_back(a.data());
  int gb_argc = static_cast<int>(gb_argv.size());
  benchmark::Initialize(&gb_argc, gb_argv.data());
  if (gb_argc > 1) {
    throw UsageError(std::string("unknown Google Benchmark flag '") + gb_argv[1] + "'");
  }
  const SweepSpec spec = sweep_spec_from(vm);
  const Placement placement = [&] {
    try {
      return parse_placement(settings.placement);
    } catch (const HarnessError& e) {
      throw UsageError(std::string("bad value for --placement: ") + e.what());
    }
  }();

  // A misspelt event would otherwise run the whole sweep and read `unsupported` like an event
  // this machine cannot count.
  for (const std::string& event : settings.counters) {
    if (const std::string why = unknown_counter_reason(event); !why.empty()) {
      std::vector<std::string> known = papi_preset_names();
      for (const std::string& sde : sde_counter_names()) known.push_back(sde);
      const std::string suggestion = closest_name(event, known);
      throw UsageError("bad value for --counters: " + why +
                       (suggestion.empty() ? "" : "; did you mean " + suggestion + "?"));
    }
  }
  // Options that do nothing without another are refused rather than ignored.
  const auto has_state = [&](CacheState state) {
    return std::find(spec.cache_states.begin(), spec.cache_states.end(), state) != spec.cache_states.end();
  };
  if (has_state(CacheState::kFresh) &&
      std::none_of(settings.families.begin(), settings.families.end(), appends_per_step))
    throw UsageError("--cache-state fresh applies to append, append_streaming and append_memcpy only "
                     "(the position each step writes); add append to --benchmarks");
  if (settings.time_weights && !has_state(CacheState::kWeights))
    throw UsageError("--time-weights applies to --cache-state weights only (the layer weights it streams "
                     "between steps); add weights to --cache-state");
  // Before anything is measured: the LLC probe and the ceilings run the same target as the kernels.
  apply_simd_target_option(settings.simd_target);
  const auto topo = Topology::discover();
  try {
    check_placement(*topo, placement);  // before the sweep, not once per configuration
  } catch (const HarnessError& e) {
    throw UsageError(std::string("bad value for --placement: ") + e.what());
  }
  // Shapes, thread counts and pins do not depend on the LLC's size, so a bad one is refused
  // before --llc auto's probe (1.5-2.5 s on the Zen 3 guest) rather than after it; so is a given
  // context that cannot fit even without the cold state's LLC-sized flush buffer (a lower bound
  // of what it needs). The plan that runs is expanded again below, from the size the option decides.
  if (!settings.skip_invalid) {
    MachineFacts facts = probe_machine(*topo);
    const SweepPlan early = expand_sweep(spec, facts);
    refuse_rejected(early);
    pus_used(*topo, early.configs);  // a pin list naming a PU that does not exist
    facts.llc_bytes = 0;
    if (!spec.context_auto) check_memory(early.configs, facts);
  }
  apply_llc_option(*topo, llc_setting_of_run(*topo, settings));
  const CpuFamily cpu = cpu_family(*topo);  // what both prefetch settings' auto is tuned by
  if (settings.sw_prefetch_auto) {
    set_sw_prefetch(tuned_sw_prefetch(cpu.vendor, cpu.family));
    if (sw_prefetch() != SwPrefetch::kT0)
      std::fprintf(stderr, "kvbench: software prefetch %s, tuned for %s family %d (--sw-prefetch t0 "
                   "for the default)\n", sw_prefetch_name(sw_prefetch()), cpu.vendor.c_str(), cpu.family);
  } else {
    set_sw_prefetch(settings.sw_prefetch);
  }
  set_tile_order(settings.tile_order);
  if (settings.slot_prefetch_auto) {
    set_slot_prefetch(tuned_slot_prefetch(cpu.vendor, cpu.family));
  } else {
    set_slot_prefetch(settings.slot_prefetch);
  }
  const MachineFacts machine = probe_machine(*topo);
  SweepPlan plan = expand_sweep(spec, machine);
  for (const std::string& note : plan.notes) std::fprintf(stderr, "kvbench: %s\n", note.c_str());
  if (!settings.skip_invalid) refuse_rejected(plan);
  if (!plan.rejected.empty()) {
    std::fprintf(stderr, "kvbench: skipping %zu invalid configuration(s):%s\n",
                 plan.rejected.size(), rejected_list(plan).c_str());
  }
  if (settings.skip_invalid) {
    // Too little memory is as impossible as a bad shape: drop those configurations too.
    std::vector<DecodeConfig> fitting;
    std::string list;
    for (const DecodeConfig& c : plan.configs) {
      const std::int64_t need = config_memory_bytes(c, machine);
      if (need <= machine.mem_available) {
        fitting.push_back(c);
      } else {
        list += "\n  " + c.label() + ": requires " + std::to_string(need) + " bytes, available " +
                std::to_string(machine.mem_available);
      }
    }
    if (fitting.size() != plan.configs.size()) {
      std::fprintf(stderr, "kvbench: skipping %zu configuration(s) that need more memory than "
                   "is available:%s\n", plan.configs.size() - fitting.size(), list.c_str());
      plan.configs = std::move(fitting);
    }
  }
  if (plan.configs.empty()) throw UsageError("the sweep has no valid configuration");
  check_memory(plan.configs, machine);
  if (settings.ceilings == CeilingSet::kRead || settings.ceilings == CeilingSet::kAll) {
    // The DRAM ceiling streams max(4 x LLC, 1 GiB) (copy: source and destination).
    const std::int64_t ws = dram_working_set_bytes(machine.llc_bytes);
    const std::int64_t need = settings.ceilings == CeilingSet::kAll ? 2 * ws : ws;
    if (need > machine.mem_available) {
      throw UsageError("the DRAM ceiling needs " + std::to_string(need) + " bytes, available " +
                       std::to_string(machine.mem_available) +
                       " bytes (MemAvailable); use --ceilings none");
    }
  }

  // PUs any configuration will use: the run-level llc_bytes/governor come from them.
  std::set<unsigned> used = pus_used(*topo, plan.configs);
  std::vector<std::pair<int, std::string>> groups;
  for (const DecodeConfig& c : plan.configs) {
    const std::pair<int, std::string> g{c.threads, c.pin};
    if (std::find(groups.begin(), groups.end(), g) == groups.end()) groups.push_back(g);
  }
  if (used.empty()) used.insert(topo->pus().begin(), topo->pus().end());
  const RunMetadata meta = collect_metadata(*topo, {used.begin(), used.end()});

  std::vector<std::string> events = settings.counters;
  for (const std::string& e : sde_counter_names()) events.push_back(e);

  const std::string out = settings.out.empty() ? default_out_path(meta) : settings.out;
  std::error_code ec;
  const bool exists = fs::exists(out, ec);
  ExistingResults existing;
  if ((settings.resume || settings.append) && exists && !settings.dry_run) {
    set_aside_partial_row(out);
  }
  if (settings.resume && exists) {
    existing = read_existing_results(out, settings.repetitions);
    // A series in one file stays on one machine: another CPU's rows beside these would read as
    // one series.
    const std::string here =
        machine_identity(meta.cpu_vendor, meta.cpu_model, meta.cpu_signature,
                         std::to_string(meta.pus_total));
    for (const std::string& there : existing.machines) {
      if (there != here) {
        throw UsageError("--resume: '" + out + "' was written on " + there + ", this machine is " +
                         here + "; resuming would mix machines in one series: use --out for a new "
                         "file");
      }
    }
    // The isa column also names the code path (KVBENCH_AMX, --sw-prefetch): a series in one
    // file keeps one, or its rows could not be told apart from a change of the machine.
    for (const std::string& there : existing.isas) {
      if (!there.empty() && there != meta.isa) {
        throw UsageError("--resume: '" + out + "' was written with isa " + there +
                         ", this run's is " + meta.isa + " (--sw-prefetch and KVBENCH_AMX add to "
                         "it); resuming would mix code paths: run with the file's settings, or "
                         "use --out for a new file");
      }
    }
  }
  if (exists && !settings.force && !settings.append && !settings.resume) {
    throw UsageError("output file '" + out +
                     "' exists; kvbench never overwrites results: use --append or --resume to "
                     "add to it, --force to replace it, or --out to choose another file");
  }
  if ((settings.append) && !exists) {
    throw UsageError("--append: output file '" + out + "' does not exist");
  }

  // Benchmarks to run: every (configuration, family) not already complete in the file.
  RunState state;
  state.topo = topo.get();
  state.settings = &settings;
  state.meta = &meta;
  state.configs = plan.configs;
  state.counter_events = events;
  state.placement = placement;
  std::size_t skipped = 0;
  std::vector<std::string> not_fresh;  // families left out of the fresh configurations
  for (std::size_t i = 0; i < state.configs.size(); ++i) {
    for (Family f : settings.families) {
      if (state.configs[i].cache_state == CacheState::kFresh && !appends_per_step(f)) {
        if (std::find(not_fresh.begin(), not_fresh.end(), family_name(f)) == not_fresh.end())
          not_fresh.emplace_back(family_name(f));
        continue;
      }
      for (const VariantParams& p : variant_points(f, settings)) {
        if (is_variant_family(f) && state.configs[i].hybrid()) {
          throw UsageError(std::string(family_name(f)) + " needs a uniform cache; " +
                           state.configs[i].label() + " has a sliding pattern (run it with "
                           "decode_step, attention, append or prefill_copy)");
        }
        if (f == Family::kChunkedAttention && p.query_tokens > state.configs[i].attended()) {
          throw UsageError("--query-tokens " + std::to_string(p.query_tokens) +
                           " exceeds the context " + std::to_string(state.configs[i].attended()) +
                           " of " + state.configs[i].label());
        }
        if (existing.complete.count(config_key(config_columns(state.configs[i], f, p)))) {
          ++skipped;
          continue;
        }
        state.entries.push_back({i, f, p});
      }
    }
  }
  if (!not_fresh.empty()) {
    std::string names;
    for (const std::string& n : not_fresh) names += (names.empty() ? "" : ", ") + n;
    std::fprintf(stderr, "kvbench: cache_state fresh runs append, append_streaming and append_memcpy only; not %s\n", names.c_str());
  }
  // What a benchmark allocates beside its configuration's cache: a variant's buffers (one
  // variant at a time), prefill_copy's per-layer sources.
  const auto beside_cache = [](const DecodeConfig& c, const Entry& e) -> std::int64_t {
    if (is_variant_family(e.family)) return variant_memory_bytes(c, e.family, e.params);
    return e.family == Family::kPrefillCopy ? prefill_source_bytes(c) : 0;
  };
  {
    // As with configurations, --skip-invalid drops the benchmarks that do not fit; else refused.
    std::string report;
    std::vector<Entry> fitting;
    for (const Entry& e : state.entries) {
      const DecodeConfig& c = state.configs[e.config];
      const std::int64_t extra = beside_cache(c, e);
      const std::int64_t need = config_memory_bytes(c, machine) + extra;
      if (extra > 0 && need > machine.mem_available) {
        if (report.size() < 2000) {
          report += "\n  " + std::string(family_name(e.family)) +
                    variant_suffix(e.family, e.params, ' ') + " " + c.label() + ": requires " +
                    std::to_string(need) + " bytes, available " + std::to_string(machine.mem_available);
        }
      } else {
        fitting.push_back(e);
      }
    }
    if (!report.empty()) {
      if (!settings.skip_invalid) {
        throw UsageError("benchmark(s) need more memory than is available (MemAvailable):" + report);
      }
      std::fprintf(stderr, "kvbench: skipping %zu benchmark(s) that need more memory than is available:%s\n",
                   state.entries.size() - fitting.size(), report.c_str());
      state.entries = std::move(fitting);
    }
  }
  if (settings.ceiling_bracket) {
    // The bracket keeps one buffer per (threads, pin, level) for the whole run, beside the
    // configuration being measured: count every level's working set of every thread group.
    std::set<std::pair<int, std::string>> bracket_groups;
    std::int64_t largest = 0;
    std::string largest_label;
    for (const Entry& e : state.entries) {
      const DecodeConfig& c = state.configs[e.config];
      bracket_groups.insert({runs_single_threaded(e.family) ? 1 : c.threads, c.pin});
      const std::int64_t need = config_memory_bytes(c, machine) + beside_cache(c, e);
      if (need > largest) {
        largest = need;
        largest_label = std::string(family_name(e.family)) + " " + c.label();
      }
    }
    std::int64_t buffers = 0;
    for (const auto& [threads, pin] : bracket_groups) {
      const std::vector<unsigned> pus = choose_pus(*topo, threads, parse_pin_policy(pin));
      for (const WorkingSet& ws : ceiling_working_sets(*topo, pus, threads)) buffers += ws.bytes;
    }
    check_bracket_memory(largest_label, largest, buffers, machine);
  }
  if (skipped > 0) {
    std::fprintf(stderr, "kvbench: resume: %zu configuration(s) already complete in %s\n",
                 skipped, out.c_str());
  }

  if (settings.dry_run) {
    std::printf("%zu benchmark(s) to run, %zu already complete, output %s\n",
                state.entries.size(), skipped, out.c_str());
    for (const Entry& e : state.entries) {
      std::printf("  %s%s %s (%lld KV bytes)\n", family_name(e.family),
                  variant_suffix(e.family, e.params, ' ').c_str(),
                  state.configs[e.config].label().c_str(),
                  static_cast<long long>(state.configs[e.config].kv_bytes()));
    }
    return 0;
  }

  if (settings.force && exists) fs::remove(out, ec);
  if (const fs::path parent = fs::path(out).parent_path(); !parent.empty()) {
    fs::create_directories(parent, ec);
  }
  CsvWriter writer(out, csv_columns(events),
                   exists && !settings.force ? CsvWriter::Mode::kAppend : CsvWriter::Mode::kRefuse);
  state.writer = &writer;

  // Ceilings first, per (threads, pin) group, so every row can carry its ceiling. A resumed run
  // measures its own too, also for a group whose ceilings the file holds: those were taken when
  // the killed run started, and its rows are held to this invocation's (with its end-of-run
  // bursts and crossing below).
  std::set<std::pair<int, std::string>> needed;
  std::map<std::pair<int, std::string>, StartCeilings> start_ceilings;  // groups measured by this run
  for (const Entry& e : state.entries) {
    needed.insert({state.configs[e.config].threads, state.configs[e.config].pin});
  }
  for (const auto& [threads, pin] : groups) {
    if (!needed.count({threads, pin})) continue;
    if (settings.ceilings != CeilingSet::kNone) {
      start_ceilings[{threads, pin}] =
          measure_ceilings(*topo, threads, pin, settings, meta, placement, events, &writer, &state.read_ceiling,
                           &state.copy_ceiling, settings.ceiling_bracket ? &state.bracket_buffers : nullptr);
    }
  }

  // Register one Google Benchmark per (configuration, family); registration order is run
  // order, so all families of one configuration share its fixture.
  benchmark::ClearRegisteredBenchmarks();
  bool user_reps = false, user_min_time = false;
  for (const std::string& flag : settings.benchmark_flags) {
    user_reps |= flag.rfind("--benchmark_repetitions", 0) == 0;
    user_min_time |= flag.rfind("--benchmark_min_time", 0) == 0;
  }
  for (std::size_t i = 0; i < state.entries.size(); ++i) {
    const Entry& e = state.entries[i];
    const std::string name = benchmark_name(state.configs[e.config], e.family, e.params);
    state.entry_by_name[name] = i;
    RunState* sp = &state;
    auto* b = benchmark::RegisterBenchmark(
        name.c_str(), [sp, i](benchmark::State& st) { benchmark_body(sp, i, st); });
    b->UseManualTime()->Unit(benchmark::kNanosecond);
    if (!user_reps) b->Repetitions(settings.repetitions);
    const DecodeConfig& c = state.configs[e.config];
    if (c.cache_state == CacheState::kCold || c.cache_state == CacheState::kWeights) {
      // Each cold/weights step pays an untimed flush far longer than the step, and min-time
      // counts timed seconds only: fix the iteration count from a 10 GB/s step estimate
      // instead, so a repetition takes about min-time of steps (3..20 of them).
      const double step_s = static_cast<double>(c.kv_bytes()) / 10e9;
      const double wanted = std::ceil(settings.min_time_s / std::max(step_s, 1e-9));
      b->Iterations(static_cast<benchmark::IterationCount>(std::clamp(wanted, 3.0, 20.0)));
    } else if (!user_min_time) {
      b->MinTime(settings.min_time_s);
    }
  }
  state.progress = std::make_unique<Progress>(static_cast<int>(state.entries.size()));

  benchmark::ConsoleReporter console;
  ForwardingReporter reporter(
      &console, [&](const benchmark::BenchmarkReporter::Run& run) { state.write_row(run); }, is_worker_wait_counter);
  benchmark::RunSpecifiedBenchmarks(&reporter);
  benchmark::Shutdown();
  state.variant.reset();
  state.fixture.reset();
  // The crossing again at the end: the host may have moved the vCPUs while the rows ran (on the
  // 2-vCPU Zen 5 guest 2 of 27 runs crossed at the start in one placement and ran their rows in
  // the other, results/epyc-zen5-2c-kvm-508m/placement/). Analysis judges the two. The FMA bursts
  // are taken again too: a worker slowed through all of the start's may not be at the end
  // (results/xeon-emr-16c-kvm/fma-ends/), and analysis keeps the faster end as the run's roof.
  std::string crossings, fma_ends;
  for (const auto& [group, start] : start_ceilings) {
    const double end_ns =
        measure_barrier_end(*topo, group.first, group.second, meta, placement, events, state.read_ceiling, &writer);
    char line[160];
    if (start.fma_gflops) {
      const double end_gflops =
          measure_fma_end(*topo, group.first, group.second, meta, placement, events, state.read_ceiling, &writer);
      std::snprintf(line, sizeof line, "  %d thread%s, %s: %.1f GFLOP/s at the start, %.1f at the end (%.2fx)\n",
                    group.first, group.first == 1 ? "" : "s", group.second.c_str(), *start.fma_gflops, end_gflops,
                    end_gflops / *start.fma_gflops);
      fma_ends += line;
    }
    if (group.first < 2) continue;  // one worker crosses alone: no placement to see
    std::snprintf(line, sizeof line, "  %d threads, %s: %.0f ns at the start, %.0f ns at the end\n", group.first,
                  group.second.c_str(), start.crossing_ns, end_ns);
    crossings += line;
  }

  std::vector<RunSummaryLine> lines;
  for (const auto& [index, s] : state.summary) lines.push_back(s);
  std::printf("\n%s", format_run_summary(lines, settings.ceiling_bracket).c_str());
  if (!crossings.empty()) {
    std::printf("\none crossing of the per-layer barrier (%s, %s):\n%s", ceiling_benchmark_name(CeilingKind::kBarrier),
                kBarrierEndBenchmark, crossings.c_str());
  }
  if (!fma_ends.empty()) {
    std::printf("\nFP32 FMA ceiling, the run's roof the faster end (%s, %s):\n%s",
                ceiling_benchmark_name(CeilingKind::kFma), kFmaEndBenchmark, fma_ends.c_str());
  }
  std::printf("\nresults: %s (%d rows)\n", out.c_str(), writer.rows_written());
  if (state.invalid > 0 || state.errors > 0) {
    std::fprintf(stderr, "kvbench: %d configuration(s) failed validation, %d failed to run\n",
                 state.invalid, state.errors);
    return 1;
  }
  return 0;
}

}  // namespace kvb
