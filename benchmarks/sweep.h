// A sweep: lists of shapes, dtypes, layouts, thread counts, pinnings and cache states whose
// Cartesian product is run. Expansion validates every point before anything runs.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "benchmarks/machine_facts.h"
#include "kernels/cache_geometry.h"
#include "kernels/dtype.h"

namespace kvb {

enum class CacheState : std::uint8_t {
  kWarm,     // the same step repeated: KV stays wherever it fits
  kCold,     // LLC flushed (untimed) between steps
  kWeights,  // each layer's weights streamed (untimed unless asked) between layers, as GEMVs do
  kFresh,    // append families only: each step appends at a new position (wrapping), as decode does
};
const char* cache_state_name(CacheState s) noexcept;
bool parse_cache_state(const std::string& name, CacheState* out) noexcept;

// The model side of one sweep point.
struct ModelShape {
  std::string model = "custom";
  std::int64_t layers = 0;
  std::int64_t q_heads = 0;
  std::int64_t kv_heads = 0;
  std::int64_t head_dim = 0;
  std::int64_t context = 0;           // positions attended per step
  std::int64_t max_context = 0;       // model limit; 0 = no limit
  std::int64_t window = 0;            // sliding window W; 0 = full attention
  // Hybrid models (Gemma 2: 1:1, Gemma 3: 5:1): of every sliding_layers + global_layers
  // consecutive layers the first sliding_layers use the window, the rest attend to the whole
  // context. 0:0 = every layer uses `window`.
  std::int64_t sliding_layers = 0;
  std::int64_t global_layers = 0;
  std::int64_t hidden_size = 0;       // for the per-layer weight traffic of cache_state=weights
  std::int64_t intermediate_size = 0;
  std::int64_t mlp_matrices = 3;      // 3 for gated MLPs (gate, up, down), 2 for plain
  std::int64_t weight_bytes = 2;      // bytes per weight element
};

struct DecodeConfig {
  ModelShape shape;
  DType dtype = DType::kF32;
  Layout layout = Layout::kHeadMajor;
  int threads = 1;
  std::string pin = "compact";
  CacheState cache_state = CacheState::kWarm;

  // Cache geometry: capacity is the window for sliding models, else the context.
  // (A hybrid configuration has two caches: see parts().)
  CacheShape cache_shape() const;
  // A sliding pattern with both kinds of layers present.
  bool hybrid() const;
  // Layers that use the window (all of them unless hybrid).
  std::int64_t sliding_layer_count() const;
  // The uniform configurations a hybrid one is made of: its sliding layers (with the window)
  // and its global layers (window 0), empty parts left out; {*this} when not hybrid.
  std::vector<DecodeConfig> parts() const;
  // "5:1", or "" when every layer is alike.
  std::string sliding_pattern() const;
  // Positions actually attended: min(context, window) for sliding models.
  std::int64_t attended() const;
  // KV bytes one decode step reads (all layers, scales included): the working set.
  std::int64_t kv_bytes() const;
  // Bytes of one layer's weights (q, k, v, o projections + MLP) at weight_bytes each.
  std::int64_t weight_bytes_per_layer() const;
  // Short readable label, e.g. "qwen3-0.6b fp32 ctx=1024 t=2 compact warm".
  std::string label() const;
};

struct SweepSpec {
  std::string model = "custom";
  std::vector<std::int64_t> layers, q_heads, kv_heads, head_dim, context;
  bool context_auto = false;  // context = auto: per dtype, working sets < L2, ~LLC/2, >= max(4x LLC, 1 GiB)
  std::int64_t max_context = 0;
  std::vector<std::int64_t> window{0};  // sliding windows swept; 0 = full attention
  std::int64_t sliding_layers = 0, global_layers = 0;  // --sliding-pattern S:G
  std::int64_t hidden_size = 0;
  std::int64_t intermediate_size = 0;
  std::int64_t mlp_matrices = 3;
  std::int64_t weight_bytes = 2;
  std::vector<DType> dtypes{DType::kF32};
  std::vector<Layout> layouts{Layout::kHeadMajor};
  std::vector<std::string> threads{"all"};  // integers or "all"
  std::vector<std::string> pins{"compact"};
  std::vector<CacheState> cache_states{CacheState::kWarm};
};

struct RejectedConfig {
  DecodeConfig config;
  std::string reason;
};

struct SweepPlan {
  std::vector<DecodeConfig> configs;
  std::vector<RejectedConfig> rejected;
  // What the expansion chose on the user's behalf and why (context = auto clamped to the
  // model's capacity), one line each, for the run to print.
  std::vector<std::string> notes;
};

// Cartesian product of the spec, each point validated (shape, GQA divisibility, context vs
// max-context, threads vs PUs, pin syntax). Throws UsageError for values that are malformed
// rather than merely impossible together (e.g. pin "spread").
SweepPlan expand_sweep(const SweepSpec& spec, const MachineFacts& machine);

// Contexts whose whole-cache working set (per_token_bytes each) is < L2, about LLC/2 and
// >= max(4x LLC, 1 GiB) (the DRAM read ceiling's working set); duplicates removed, ascending,
// each >= 1. Where `max_threads` private L2s (one per thread) hold LLC/2 but not the LLC, the
// LLC-resident context sits halfway between their sum and the LLC instead, so that it is
// LLC-resident at every thread count of the sweep. With context = auto, expand_sweep holds
// a context beyond the model's max-context to max-context (and says so in the plan's notes):
// the auto sizes come from this machine's caches, not from the user, so a large LLC must not
// make the default sweep invalid.
std::vector<std::int64_t> auto_contexts(std::int64_t per_token_bytes, const MachineFacts& machine,
                                        int max_threads = 1);

// Bytes a configuration allocates: cache data + scales, the LLC flush buffer (cold), the
// weight buffer (weights), queries/outputs/workspaces.
std::int64_t config_memory_bytes(const DecodeConfig& config, const MachineFacts& machine);

// Bytes prefill_copy allocates beside the configuration: fp32 K and V sources for every layer's
// attended positions (each layer copies its own, so the copy streams from memory).
std::int64_t prefill_source_bytes(const DecodeConfig& config);

// Throws UsageError listing the configurations whose memory exceeds machine.mem_available,
// with required vs available bytes.
void check_memory(const std::vector<DecodeConfig>& configs, const MachineFacts& machine);

// --ceiling-bracket keeps `bracket_bytes` of ceiling buffers for the whole run, beside each
// configuration: throws UsageError naming both sizes when they do not fit beside the largest
// (`largest_label`, `largest_bytes`) in machine.mem_available.
void check_bracket_memory(const std::string& largest_label, std::int64_t largest_bytes,
                          std::int64_t bracket_bytes, const MachineFacts& machine);

}  // namespace kvb
