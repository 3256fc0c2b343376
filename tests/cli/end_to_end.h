// What the end-to-end tests of the binaries share: where they find the binaries they drive and
// the source tree (compiled in; where a test binary travels without its build tree, to a lent
// machine that has no compiler, the environment names them), and reading a whole file.
#pragma once
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

namespace kvb_test {

inline std::string from_env_or(const char* name, const char* built_in) {
  const char* v = std::getenv(name);
  return v && *v ? v : built_in;
}

// The kvbench under test and the source tree (configs/models, results/). The target compiles in
// KVBENCH_BINARY and KVBENCH_TEST_SOURCE_DIR.
inline const std::string kKvbench = from_env_or("KVBENCH_TEST_KVBENCH", KVBENCH_BINARY);
inline const std::string kSourceDir = from_env_or("KVBENCH_TEST_SOURCE_DIR", KVBENCH_TEST_SOURCE_DIR);

inline std::string slurp(const std::filesystem::path& p) {
  std::ifstream in(p);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

}  // namespace kvb_test
