// Model presets (configs/models/*.ini) and how much of their KV cache fits in a CPU's LLC.
#pragma once
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace kvb {

struct ModelPreset {
  std::string name;  // `model` key
  std::string file;
  std::int64_t layers = 0;
  std::int64_t kv_heads = 0;
  std::int64_t head_dim = 0;
  std::int64_t max_context = 0;
};

// Reads every *.ini in `dir` (keys model, layers, kv-heads, head-dim, max-context; other keys
// are ignored), sorted by name. Throws InputError if the directory is missing or a preset lacks
// a key or has a non-positive value.
std::vector<ModelPreset> load_model_presets(const std::string& dir);

inline constexpr std::string_view kFitDTypes[] = {"fp32", "fp16", "bf16", "int8"};

// Bytes of KV cache one token adds across all layers: 2 (K and V) * layers * kv_heads * row,
// where a row is head_dim elements plus, for int8, its 4-byte fp32 scale. 0 for an unknown dtype.
std::int64_t kv_bytes_per_token(const ModelPreset& m, std::string_view dtype);

// Largest context whose whole KV cache fits in `llc_bytes` (0 if not even one token fits).
std::int64_t largest_context_in_llc(const ModelPreset& m, std::string_view dtype, double llc_bytes);

}  // namespace kvb
