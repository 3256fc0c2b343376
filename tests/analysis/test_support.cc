#include "tests/analysis/test_support.h"

namespace kvb::testing {

std::filesystem::path scratch_dir(const std::string& name) {
  const std::filesystem::path dir = std::filesystem::path(KVBENCH_TEST_OUTPUT_DIR) / "scratch" / name;
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  return dir;
}

int run_command(int (*entry)(int, char**), std::vector<std::string> args) {
  std::vector<char*> argv;
  for (auto& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  return entry(static_cast<int>(args.size()), argv.data());
}

}  // namespace kvb::testing
