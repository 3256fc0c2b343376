#include "benchmarks/model_presets.h"

#include <algorithm>
#include <cstdlib>

#include "benchmarks/option_suggestion.h"
#include "benchmarks/usage_error.h"

namespace kvb {
namespace fs = std::filesystem;

fs::path models_dir() {
  std::vector<fs::path> candidates;
  if (const char* env = std::getenv("KVBENCH_MODELS_DIR")) candidates.emplace_back(env);
  candidates.emplace_back("configs/models");
  candidates.emplace_back(KVBENCH_SOURCE_MODELS_DIR);
  for (const fs::path& dir : candidates) {
    std::error_code ec;
    if (fs::is_directory(dir, ec)) return dir;
  }
  throw UsageError("no model preset directory found (set KVBENCH_MODELS_DIR or run from the "
                   "kvbench source tree)");
}

std::vector<std::string> preset_names() {
  std::vector<std::string> names;
  for (const auto& entry : fs::directory_iterator(models_dir())) {
    if (entry.path().extension() == ".ini") names.push_back(entry.path().stem().string());
  }
  std::sort(names.begin(), names.end());
  return names;
}

fs::path preset_path(const std::string& name) {
  const fs::path path = models_dir() / (name + ".ini");
  std::error_code ec;
  if (fs::is_regular_file(path, ec)) return path;
  const std::vector<std::string> known = preset_names();
  std::string message = "unknown model preset '" + name + "'";
  const std::string suggestion = closest_name(name, known);
  if (!suggestion.empty()) message += "; did you mean '" + suggestion + "'?";
  message += " (known:";
  for (const std::string& k : known) message += " " + k;
  message += ")";
  throw UsageError(message);
}

fs::path sweep_path(const std::string& name_or_path) {
  std::error_code ec;
  if (fs::is_regular_file(name_or_path, ec)) return name_or_path;
  const fs::path sweeps = models_dir().parent_path() / "sweeps";
  const fs::path path = sweeps / (name_or_path + ".ini");
  if (fs::is_regular_file(path, ec)) return path;
  std::string message = "config file '" + name_or_path + "' does not exist (nor does sweep " +
                        path.string() + "; known sweeps:";
  if (fs::is_directory(sweeps, ec)) {
    std::vector<std::string> names;
    for (const auto& entry : fs::directory_iterator(sweeps)) {
      if (entry.path().extension() == ".ini") names.push_back(entry.path().stem().string());
    }
    std::sort(names.begin(), names.end());
    for (const std::string& n : names) message += " " + n;
  }
  throw UsageError(message + ")");
}

}  // namespace kvb
