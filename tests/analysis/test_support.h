// Scratch directories and argv building for the analysis tests.
#pragma once
#include <filesystem>
#include <string>
#include <vector>

namespace kvb::testing {

// A fresh, empty directory under the test output dir, named for the current test.
std::filesystem::path scratch_dir(const std::string& name);

// Runs an entry point (report_main/compare_main) with the given arguments.
int run_command(int (*entry)(int, char**), std::vector<std::string> args);

}  // namespace kvb::testing
