#include "analysis/model_fit.h"

#include <algorithm>
#include <boost/program_options.hpp>
#include <cmath>
#include <filesystem>
#include <fstream>

#include "analysis/input_error.h"

namespace kvb {
namespace po = boost::program_options;

namespace {

ModelPreset load_preset(const std::filesystem::path& file) {
  ModelPreset m;
  m.file = file.string();
  po::options_description keys;
  keys.add_options()("model", po::value(&m.name)->required())(
      "layers", po::value(&m.layers)->required())("kv-heads", po::value(&m.kv_heads)->required())(
      "head-dim", po::value(&m.head_dim)->required())("max-context", po::value(&m.max_context)->required());
  std::ifstream in(file);
  if (!in) throw InputError(file.string() + ": cannot open model preset");
  try {
    po::variables_map vm;
    po::store(po::parse_config_file(in, keys, /*allow_unregistered=*/true), vm);
    po::notify(vm);
  } catch (const po::error& e) {
    throw InputError(file.string() + ": bad model preset: " + e.what());
  }
  if (m.layers <= 0 || m.kv_heads <= 0 || m.head_dim <= 0 || m.max_context <= 0) {
    throw InputError(file.string() + ": layers, kv-heads, head-dim and max-context must be positive");
  }
  return m;
}

}  // namespace

std::vector<ModelPreset> load_model_presets(const std::string& dir) {
  std::error_code ec;
  if (!std::filesystem::is_directory(dir, ec)) throw InputError(dir + ": model preset directory not found");
  std::vector<ModelPreset> presets;
  for (const auto& entry : std::filesystem::directory_iterator(dir)) {
    if (entry.is_regular_file() && entry.path().extension() == ".ini") {
      presets.push_back(load_preset(entry.path()));
    }
  }
  std::sort(presets.begin(), presets.end(),
            [](const ModelPreset& a, const ModelPreset& b) { return a.name < b.name; });
  return presets;
}

std::int64_t kv_bytes_per_token(const ModelPreset& m, std::string_view dtype) {
  std::int64_t element_bytes = 0;
  std::int64_t row_scale_bytes = 0;
  if (dtype == "fp32") {
    element_bytes = 4;
  } else if (dtype == "fp16" || dtype == "bf16") {
    element_bytes = 2;
  } else if (dtype == "int8") {
    element_bytes = 1;
    row_scale_bytes = 4;  // one fp32 scale per (layer, K|V, kv_head, position) row
  } else {
    return 0;
  }
  return 2 * m.layers * m.kv_heads * (m.head_dim * element_bytes + row_scale_bytes);
}

std::int64_t largest_context_in_llc(const ModelPreset& m, std::string_view dtype, double llc_bytes) {
  const std::int64_t per_token = kv_bytes_per_token(m, dtype);
  if (per_token <= 0 || llc_bytes <= 0) return 0;
  return static_cast<std::int64_t>(std::floor(llc_bytes / static_cast<double>(per_token)));
}

}  // namespace kvb
