#include "benchmarks/sweep.h"

#include <algorithm>
#include <cstdio>
#include <sstream>
#include <string>
#include <tuple>

#include "benchmarks/usage_error.h"
#include "benchmarks/value_list.h"
#include "harness/ceilings.h"
#include "kernels/cost_model.h"

namespace kvb {

const char* cache_state_name(CacheState s) noexcept {
  switch (s) {
    case CacheState::kWarm: return "warm";
    case CacheState::kCold: return "cold";
    case CacheState::kWeights: return "weights";
    case CacheState::kFresh: return "fresh";
  }
  return "?";
}

bool parse_cache_state(const std::string& name, CacheState* out) noexcept {
  for (CacheState s : {CacheState::kWarm, CacheState::kCold, CacheState::kWeights, CacheState::kFresh}) {
    if (name == cache_state_name(s)) {
      *out = s;
      return true;
    }
  }
  return false;
}

CacheShape DecodeConfig::cache_shape() const {
  CacheShape s;
  s.layers = static_cast<std::int32_t>(shape.layers);
  s.q_heads = static_cast<std::int32_t>(shape.q_heads);
  s.kv_heads = static_cast<std::int32_t>(shape.kv_heads);
  s.head_dim = static_cast<std::int32_t>(shape.head_dim);
  s.capacity = shape.window > 0 ? shape.window : shape.context;
  s.dtype = dtype;
  s.layout = layout;
  return s;
}

std::int64_t DecodeConfig::sliding_layer_count() const {
  if (shape.window <= 0) return 0;
  const std::int64_t period = shape.sliding_layers + shape.global_layers;
  if (shape.global_layers <= 0 || period <= 0) return shape.layers;
  return shape.layers / period * shape.sliding_layers +
         std::min(shape.layers % period, shape.sliding_layers);
}

bool DecodeConfig::hybrid() const {
  const std::int64_t sliding = sliding_layer_count();
  return sliding > 0 && sliding < shape.layers;
}

std::vector<DecodeConfig> DecodeConfig::parts() const {
  if (!hybrid()) return {*this};
  DecodeConfig sliding = *this, global = *this;
  sliding.shape.layers = sliding_layer_count();
  global.shape.layers = shape.layers - sliding.shape.layers;
  global.shape.window = 0;
  for (DecodeConfig* part : {&sliding, &global}) {
    part->shape.sliding_layers = 0;
    part->shape.global_layers = 0;
  }
  return {sliding, global};
}

std::string DecodeConfig::sliding_pattern() const {
  if (shape.window <= 0 || shape.global_layers <= 0) return "";
  return std::to_string(shape.sliding_layers) + ":" + std::to_string(shape.global_layers);
}

std::int64_t DecodeConfig::attended() const {
  return shape.window > 0 ? std::min(shape.context, shape.window) : shape.context;
}

std::int64_t DecodeConfig::kv_bytes() const {
  if (hybrid()) {
    std::int64_t bytes = 0;
    for (const DecodeConfig& part : parts()) bytes += part.kv_bytes();
    return bytes;
  }
  const std::int64_t row_bytes =
      dtype_row_bytes(dtype, shape.head_dim) +
      (dtype_has_row_scale(dtype) ? static_cast<std::int64_t>(sizeof(float)) : 0);
  return 2 * shape.layers * shape.kv_heads * attended() * row_bytes;
}

std::int64_t DecodeConfig::weight_bytes_per_layer() const {
  const std::int64_t h = shape.hidden_size;
  const std::int64_t attention = h * shape.head_dim * (2 * shape.q_heads + 2 * shape.kv_heads);
  const std::int64_t mlp = shape.mlp_matrices * h * shape.intermediate_size;
  return (attention + mlp) * shape.weight_bytes;
}

std::string DecodeConfig::label() const {
  std::ostringstream os;
  os << shape.model << " L" << shape.layers << " q" << shape.q_heads << "/kv" << shape.kv_heads
     << " d" << shape.head_dim << " ctx=" << shape.context;
  if (shape.window > 0) os << " W=" << shape.window;
  if (!sliding_pattern().empty()) os << " " << sliding_pattern();
  os << " " << dtype_name(dtype);
  if (layout != Layout::kHeadMajor) os << " " << layout_name(layout);
  os << " t=" << threads << " " << pin << " " << cache_state_name(cache_state);
  return os.str();
}

namespace {

// "compact", "scatter", "none" or "pus:0+2+4"; returns the explicit PU count (0 otherwise).
std::size_t pin_pu_count(const std::string& pin) {
  if (pin == "compact" || pin == "scatter" || pin == "none") return 0;
  if (pin.rfind("pus:", 0) == 0 && pin.size() > 4) {
    std::size_t count = 0;
    std::size_t start = 4;
    while (true) {
      const std::size_t plus = pin.find('+', start);
      const std::string item = pin.substr(start, plus == std::string::npos ? plus : plus - start);
      if (item.empty() || item.find_first_not_of("0123456789") != std::string::npos) break;
      ++count;
      if (plus == std::string::npos) return count;
      start = plus + 1;
    }
  }
  throw UsageError("bad value '" + pin +
                   "' for --pin: expected compact, scatter, none or pus:<a>+<b>+...");
}

int resolve_threads(const std::string& item, const MachineFacts& machine) {
  if (item == "all") return machine.pus_total;
  return static_cast<int>(parse_positive(item, "threads"));
}

std::string validate(const DecodeConfig& c, const MachineFacts& machine) {
  const ModelShape& s = c.shape;
  if (s.q_heads % s.kv_heads != 0) {
    return "q_heads " + std::to_string(s.q_heads) + " is not a multiple of kv_heads " +
           std::to_string(s.kv_heads);
  }
  if (s.max_context > 0 && s.context > s.max_context) {
    return "context " + std::to_string(s.context) + " is beyond the model's capacity " +
           std::to_string(s.max_context);
  }
  if (s.window > 0 && s.max_context > 0 && s.window > s.max_context) {
    return "window " + std::to_string(s.window) + " exceeds the model's capacity " +
           std::to_string(s.max_context) + " (max-context)";
  }
  for (const auto& [name, value, limit] : {std::tuple<const char*, std::int64_t, std::int64_t>{"layers", s.layers, 1 << 20},
                                            {"q_heads", s.q_heads, 1 << 16},
                                            {"head_dim", s.head_dim, 1 << 16}}) {
    if (value > limit)
      return std::string(name) + " " + std::to_string(value) + " is beyond the " + std::to_string(limit) +
             " kvbench allows";
  }
  if (c.threads > machine.pus_total) {
    return "threads " + std::to_string(c.threads) + " exceeds the " +
           std::to_string(machine.pus_total) + " PUs of this machine";
  }
  const std::size_t pus = pin_pu_count(c.pin);
  if (pus != 0 && pus != static_cast<std::size_t>(c.threads)) {
    return "pin " + c.pin + " lists " + std::to_string(pus) + " PUs for " +
           std::to_string(c.threads) + " threads";
  }
  if (c.cache_state == CacheState::kWeights && (s.hidden_size <= 0 || s.intermediate_size <= 0)) {
    return "cache_state weights needs hidden-size and intermediate-size";
  }
  if ((s.sliding_layers > 0 || s.global_layers > 0) && s.window <= 0) {
    return "sliding-pattern needs a window (--window W > 0)";
  }
  if (dtype_row_bytes(c.dtype, s.head_dim) * 8 != std::int64_t{dtype_bits(c.dtype)} * s.head_dim) {
    return "head_dim " + std::to_string(s.head_dim) + " is odd: " + dtype_name(c.dtype) +
           " packs two elements per byte, so its rows need an even head_dim";
  }
  for (const DecodeConfig& part : c.parts()) {
    const CacheShape cs = part.cache_shape();
    // In long double: the product may be far beyond int64.
    const long double bytes = 2.0L * cs.layers * cs.kv_heads * static_cast<long double>(cs.capacity) *
                              static_cast<long double>(dtype_row_bytes(cs.dtype, cs.head_dim));
    if (bytes > static_cast<long double>(kMaxCacheBytes)) {
      char text[160];
      std::snprintf(text, sizeof text, "the cache would be %.3Lg bytes, beyond the %lld (64 PiB) kvbench addresses",
                    bytes, static_cast<long long>(kMaxCacheBytes));
      return text;
    }
    CacheGeometry geometry;
    if (const Status st = CacheGeometry::create(cs, &geometry); !ok(st)) {
      return status_message(st);
    }
  }
  return "";
}

}  // namespace

std::vector<std::int64_t> auto_contexts(std::int64_t per_token_bytes, const MachineFacts& machine,
                                        int max_threads) {
  const double per_token = static_cast<double>(std::max<std::int64_t>(per_token_bytes, 1));
  const auto tokens_for = [&](double bytes, bool round_up) {
    const double t = bytes / per_token;
    return std::max<std::int64_t>(1, static_cast<std::int64_t>(round_up ? t + 0.999999 : t));
  };
  std::vector<std::int64_t> contexts;
  if (machine.l2_bytes > 0) {
    // Strictly below L2 (half of it leaves room for queries, outputs and stack).
    contexts.push_back(tokens_for(0.5 * static_cast<double>(machine.l2_bytes), false));
  }
  if (machine.llc_bytes > 0) {
    // At 16 threads of the Emerald Rapids host (2 MiB L2 each, LLC measured 64 MiB) LLC/2 fit
    // the threads' L2s, so the "LLC-resident" rows were L2 rows and its LLC went unmeasured.
    const std::int64_t l2s = machine.l2_bytes * std::max(max_threads, 1);
    contexts.push_back(tokens_for(static_cast<double>(llc_working_set_bytes(machine.llc_bytes, l2s)), false));
    // The DRAM context streams as much as the DRAM read ceiling does, so the row and its
    // ceiling see the same share of late cache hits: on the Zen 5 guest one core still reads
    // 55 GB/s at 64 MiB (4 x its 16 MiB LLC) and 42 GB/s at 128 MiB, against 37 GB/s at 1 GiB.
    contexts.push_back(tokens_for(static_cast<double>(dram_working_set_bytes(machine.llc_bytes)), true));
  }
  std::sort(contexts.begin(), contexts.end());
  contexts.erase(std::unique(contexts.begin(), contexts.end()), contexts.end());
  return contexts;
}

SweepPlan expand_sweep(const SweepSpec& spec, const MachineFacts& machine) {
  for (const std::string& pin : spec.pins) pin_pu_count(pin);  // malformed pins are an error
  std::vector<int> threads;
  for (const std::string& item : spec.threads) {
    const int t = resolve_threads(item, machine);
    // "all" may repeat an explicit count; run it once.
    if (std::find(threads.begin(), threads.end(), t) == threads.end()) threads.push_back(t);
  }
  // The most threads that will run (counts beyond the PUs are rejected below).
  int max_threads = 1;
  for (int t : threads) max_threads = std::max(max_threads, std::min(t, std::max(machine.pus_total, 1)));
  if (spec.layers.empty() || spec.q_heads.empty() || spec.kv_heads.empty() ||
      spec.head_dim.empty() || (spec.context.empty() && !spec.context_auto)) {
    throw UsageError("incomplete shape: give --model or all of --layers, --q-heads, --kv-heads, "
                     "--head-dim, --context");
  }
  SweepPlan plan;
  for (std::int64_t layers : spec.layers)
  for (std::int64_t q_heads : spec.q_heads)
  for (std::int64_t kv_heads : spec.kv_heads)
  for (std::int64_t head_dim : spec.head_dim)
  for (DType dtype : spec.dtypes) {
    std::vector<std::int64_t> contexts = spec.context;
    if (spec.context_auto) {
      DecodeConfig probe;
      probe.shape.layers = layers;
      probe.shape.kv_heads = kv_heads;
      probe.shape.head_dim = head_dim;
      probe.shape.context = 1;
      probe.dtype = dtype;
      for (std::int64_t c : auto_contexts(probe.kv_bytes(), machine, max_threads)) {
        if (spec.max_context > 0 && c > spec.max_context) {
          char llcs[32];
          std::snprintf(llcs, sizeof llcs, "%.1f",
                        static_cast<double>(probe.kv_bytes()) * static_cast<double>(spec.max_context) /
                            static_cast<double>(std::max<std::int64_t>(machine.llc_bytes, 1)));
          plan.notes.push_back("context auto: " + std::string(dtype_name(dtype)) + " L" +
                               std::to_string(layers) + " kv" + std::to_string(kv_heads) + " d" +
                               std::to_string(head_dim) + ": " + std::to_string(c) +
                               " positions (sized from the LLC) is beyond the model's capacity; held to " +
                               std::to_string(spec.max_context) + " (" + llcs + " x LLC)");
          c = spec.max_context;
        }
        contexts.push_back(c);
      }
      std::sort(contexts.begin(), contexts.end());
      contexts.erase(std::unique(contexts.begin(), contexts.end()), contexts.end());
    }
    for (std::int64_t context : contexts)
    for (std::int64_t window : spec.window)
    for (Layout layout : spec.layouts)
    for (int t : threads)
    for (const std::string& pin : spec.pins)
    for (CacheState state : spec.cache_states) {
      DecodeConfig c;
      c.shape.model = spec.model;
      c.shape.layers = layers;
      c.shape.q_heads = q_heads;
      c.shape.kv_heads = kv_heads;
      c.shape.head_dim = head_dim;
      c.shape.context = context;
      c.shape.max_context = spec.max_context;
      c.shape.window = window;
      c.shape.sliding_layers = spec.sliding_layers;
      c.shape.global_layers = spec.global_layers;
      c.shape.hidden_size = spec.hidden_size;
      c.shape.intermediate_size = spec.intermediate_size;
      c.shape.mlp_matrices = spec.mlp_matrices;
      c.shape.weight_bytes = spec.weight_bytes;
      c.dtype = dtype;
      c.layout = layout;
      c.threads = t;
      c.pin = pin;
      c.cache_state = state;
      std::string reason = validate(c, machine);
      if (reason.empty()) {
        plan.configs.push_back(std::move(c));
      } else {
        plan.rejected.push_back({std::move(c), std::move(reason)});
      }
    }
  }
  return plan;
}

std::int64_t config_memory_bytes(const DecodeConfig& config, const MachineFacts& machine) {
  if (config.hybrid()) {
    // Each part has its own cache and buffers (an upper bound: the parts share the pool).
    std::int64_t bytes = 0;
    for (const DecodeConfig& part : config.parts()) bytes += config_memory_bytes(part, machine);
    return bytes;
  }
  CacheGeometry geometry;
  if (!ok(CacheGeometry::create(config.cache_shape(), &geometry))) return 0;
  std::int64_t bytes = geometry.data_bytes() + geometry.scale_bytes();
  if (config.cache_state == CacheState::kCold) bytes += 2 * machine.llc_bytes;
  if (config.cache_state == CacheState::kWeights) {
    bytes += config.shape.layers * config.weight_bytes_per_layer();
  }
  const std::int64_t vectors = config.shape.q_heads * config.shape.head_dim;
  // Query, fast and reference outputs, K/V tokens, per-thread partials: small but counted.
  bytes += vectors * (4 + 4 + 8) + 2 * config.shape.kv_heads * config.shape.head_dim * 4 +
           static_cast<std::int64_t>(config.threads + 1) * vectors * 8 * 4;
  return bytes;
}

std::int64_t prefill_source_bytes(const DecodeConfig& config) {
  // The sources are what the cost model says prefill_copy reads, for every layer.
  std::int64_t bytes = 0;
  for (const DecodeConfig& part : config.parts())
    bytes += prefill_copy_cost(part.cache_shape(), part.attended()).bytes_read * part.shape.layers;
  return bytes;
}

void check_memory(const std::vector<DecodeConfig>& configs, const MachineFacts& machine) {
  std::string report;
  int refused = 0;
  for (const DecodeConfig& c : configs) {
    const std::int64_t need = config_memory_bytes(c, machine);
    if (need > machine.mem_available) {
      if (++refused <= 10) {
        report += "\n  " + c.label() + ": requires " + std::to_string(need) +
                  " bytes, available " + std::to_string(machine.mem_available) + " bytes";
      }
    }
  }
  if (refused > 0) {
    if (refused > 10) report += "\n  ... and " + std::to_string(refused - 10) + " more";
    throw UsageError(std::to_string(refused) +
                     " configuration(s) need more memory than is available (MemAvailable):" +
                     report);
  }
}

void check_bracket_memory(const std::string& largest_label, std::int64_t largest_bytes,
                          std::int64_t bracket_bytes, const MachineFacts& machine) {
  if (largest_bytes + bracket_bytes <= machine.mem_available) return;
  throw UsageError("--ceiling-bracket needs " + std::to_string(bracket_bytes) +
                   " bytes of ceiling buffers (each thread count's L1..DRAM working sets, DRAM "
                   "max(4 x LLC, 1 GiB)) beside the largest configuration (" + largest_label +
                   ", " + std::to_string(largest_bytes) + " bytes): " +
                   std::to_string(largest_bytes + bracket_bytes) + " bytes, available " +
                   std::to_string(machine.mem_available) +
                   " bytes (MemAvailable); run without --ceiling-bracket or with fewer thread counts");
}

}  // namespace kvb
