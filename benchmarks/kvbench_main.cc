// kvbench: one command, several subcommands. Bad input exits 2 with a message naming the
// problem; results already written are never touched.
#include <cstdio>
#include <cstring>
#include <exception>
#include <string>
#include <vector>

#include <boost/program_options/errors.hpp>

#include "benchmarks/commands.h"
#include "benchmarks/option_suggestion.h"
#include "benchmarks/usage_error.h"
#include "harness/error.h"
#if KVBENCH_HAVE_ANALYSIS
#include "analysis/compare_command.h"
#include "analysis/report_command.h"
#endif

#if defined(KVBENCH_LAYOUT_SHIFT) && KVBENCH_LAYOUT_SHIFT > 0
// KVBENCH_LAYOUT_SHIFT bytes at the start of this file's code, which the linker puts ahead of
// the libraries' (CMakeLists.txt): every kvbench function at another address, the same code.
#define KVB_LAYOUT_TEXT(n) #n
#define KVB_LAYOUT_SKIP(n) KVB_LAYOUT_TEXT(n)
asm(".pushsection .text\n.balign 64\n.skip " KVB_LAYOUT_SKIP(KVBENCH_LAYOUT_SHIFT) "\n.popsection");
#endif

namespace {

constexpr const char* kUsage =
    "kvbench: KV-cache benchmarks for CPU LLM decode\n\n"
    "Usage: kvbench <command> [options]   (kvbench <command> --help for its options)\n\n"
    "Commands:\n"
    "  run       run a sweep (default: Qwen3-0.6B over L2/LLC/DRAM contexts) and write a CSV\n"
    "  size      KV-cache bytes for presets or shapes, without running\n"
    "  topo      the machine as kvbench sees it (hwloc)\n"
    "  ceilings  measured bandwidth/FMA ceilings at every cache level\n"
    "  report    tables and figures from result CSVs\n"
    "  compare   compare two result CSVs configuration by configuration\n"
    "  ab        two builds or settings in alternating rounds here, then compare\n";

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2 || std::strcmp(argv[1], "--help") == 0 || std::strcmp(argv[1], "-h") == 0) {
    std::fputs(kUsage, argc < 2 ? stderr : stdout);
    return argc < 2 ? kvb::kExitUsage : 0;
  }
  const std::string command = argv[1];
  const std::vector<std::string> args(argv + 2, argv + argc);
  try {
    if (command == "run") return kvb::run_main(args);
    if (command == "size") return kvb::size_main(args);
    if (command == "topo") return kvb::topo_main(args);
    if (command == "ceilings") return kvb::ceilings_main(args);
    if (command == "ab") return kvb::ab_main(args);
#if KVBENCH_HAVE_ANALYSIS
    if (command == "report") return kvb::report_main(argc - 1, argv + 1);
    if (command == "compare") return kvb::compare_main(argc - 1, argv + 1);
#else
    if (command == "report" || command == "compare") {
      throw kvb::UsageError("this kvbench was built without the analysis library");
    }
#endif
    std::string message = "unknown command '" + command + "'";
    const std::string suggestion =
        kvb::closest_name(command, {"run", "size", "topo", "ceilings", "report", "compare", "ab"});
    if (!suggestion.empty()) message += "; did you mean '" + suggestion + "'?";
    throw kvb::UsageError(message + " (kvbench --help lists them)");
  } catch (const kvb::UsageError& e) {
    std::fprintf(stderr, "kvbench: error: %s\n", e.what());
    return kvb::kExitUsage;
  } catch (const kvb::HarnessError& e) {
    std::fprintf(stderr, "kvbench: error: %s\n", e.what());
    return kvb::kExitUsage;
  } catch (const boost::program_options::error& e) {
    std::fprintf(stderr, "kvbench: error: %s\n", e.what());
    return kvb::kExitUsage;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "kvbench: failed: %s\n", e.what());
    return 1;
  }
}
