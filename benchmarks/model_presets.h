// Model presets: configs/models/<name>.ini, ordinary config files whose keys are run options.
#pragma once
#include <filesystem>
#include <string>
#include <vector>

namespace kvb {

// Directory holding the presets, first of: $KVBENCH_MODELS_DIR, ./configs/models, the source
// tree's configs/models (compiled in). Throws UsageError if none exists.
std::filesystem::path models_dir();

// A --config argument: an existing file as given, else configs/sweeps/<name>.ini (the sweeps
// directory beside models_dir()). Throws UsageError naming the known sweeps if neither exists.
std::filesystem::path sweep_path(const std::string& name_or_path);

// Path of preset `name`; throws UsageError naming the known presets if there is none.
std::filesystem::path preset_path(const std::string& name);

// Names of all presets, sorted.
std::vector<std::string> preset_names();

}  // namespace kvb
