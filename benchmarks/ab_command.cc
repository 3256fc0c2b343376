// kvbench ab: two arms (binaries, run options or environments) measured in alternating rounds on
// one machine, then `kvbench compare` in rounds mode. Shared and lent machines drift by the
// minute (the EMR host's ceilings moved by up to 50% within one call), so an A/B that runs one
// arm after the other measures the drift; rounds that alternate, the order swapped every round,
// and a verdict on the rounds' paired time ratios measure the change. Every run of a round gets
// the same --llc, decided once here: measured in each run, the knee can cross a power of two
// between the arms and their `--context auto` rows would not match. A build from before --llc
// (main dbd082a and older) sizes everything from hwloc's LLC and refuses the option; against one,
// the other arm's runs get --llc hwloc, so both still size and label from one LLC. An arm may be
// several builds of one source at other code addresses (KVBENCH_LAYOUT_SHIFT), run in turn: where
// placement alone moves a row, one pair of builds cannot tell the change from it.
#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <initializer_list>
#include <iterator>
#include <map>
#include <stdexcept>
#include <string>
#include <vector>

#include <boost/program_options.hpp>

#include "benchmarks/commands.h"
#include "benchmarks/machine_probe.h"
#include "benchmarks/option_parser.h"
#include "benchmarks/usage_error.h"
#include "benchmarks/value_list.h"
#include "harness/topology.h"

extern char** environ;

namespace kvb {
namespace po = boost::program_options;
namespace fs = std::filesystem;

namespace {

struct Arm {
  std::string name;  // base, new
  // Its kvbench binaries: one, or builds of one source whose code lies at different addresses
  // (KVBENCH_LAYOUT_SHIFT), taken in turn, round r the ((r - 1) % size)-th.
  std::vector<std::string> binaries;
  std::vector<std::string> args;  // run options of this arm only
  std::vector<std::string> env;   // NAME=VALUE set for this arm's runs
};

// "A=1,B=2" -> {"A=1", "B=2"}; each entry must name a variable.
std::vector<std::string> env_list(const std::string& text, const std::string& option) {
  if (text.empty()) return {};
  std::vector<std::string> out = split_list(text, "--" + option);
  for (const std::string& entry : out) {
    if (entry.find('=') == std::string::npos || entry.front() == '=')
      throw UsageError("bad value '" + text + "' for --" + option + ": expected NAME=VALUE[,NAME=VALUE...]");
  }
  return out;
}

bool names_option(const std::vector<std::string>& args, const std::string& option) {
  return std::any_of(args.begin(), args.end(), [&](const std::string& a) {
    return a == option || a.rfind(option + "=", 0) == 0;
  });
}

// The environment of a child: ours, with the arm's variables set.
std::vector<std::string> child_environment(const std::vector<std::string>& set) {
  std::vector<std::string> env;
  for (char** e = environ; *e != nullptr; ++e) {
    const std::string entry = *e;
    const std::string name = entry.substr(0, entry.find('='));
    const bool replaced = std::any_of(set.begin(), set.end(), [&](const std::string& s) {
      return s.compare(0, name.size() + 1, name + "=") == 0;
    });
    if (!replaced) env.push_back(entry);
  }
  env.insert(env.end(), set.begin(), set.end());
  return env;
}

std::vector<char*> c_strings(std::vector<std::string>& v) {
  std::vector<char*> out;
  for (std::string& s : v) out.push_back(s.data());
  out.push_back(nullptr);
  return out;
}

// Runs argv (argv[0] the program) with `env`; stdout and stderr go to `log` where it is given.
// Returns the exit status (128 + signal where one ended it).
int run_process(std::vector<std::string> argv, std::vector<std::string> env, const std::string& log) {
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  if (!log.empty()) {
    posix_spawn_file_actions_addopen(&actions, STDOUT_FILENO, log.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    posix_spawn_file_actions_adddup2(&actions, STDOUT_FILENO, STDERR_FILENO);
  }
  std::vector<char*> args = c_strings(argv), envp = c_strings(env);
  pid_t pid = 0;
  const int err = posix_spawn(&pid, args[0], &actions, nullptr, args.data(), envp.data());
  posix_spawn_file_actions_destroy(&actions);
  if (err != 0) throw UsageError("cannot start '" + argv[0] + "': " + std::strerror(err));
  int status = 0;
  while (waitpid(pid, &status, 0) < 0) {
    if (errno != EINTR) throw std::runtime_error(std::string("waitpid: ") + std::strerror(errno));
  }
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + (WIFSIGNALED(status) ? WTERMSIG(status) : 0);
}

// Whether `binary run` takes --llc, from its `run --help` (written to `scratch`, then removed).
// A help that fails to run says nothing: the arm's first run will name its own problem.
bool run_takes_llc(const Arm& a, const std::string& binary, const fs::path& scratch) {
  const int rc = run_process({binary, "run", "--help"}, child_environment(a.env), scratch.string());
  std::ifstream in(scratch);
  const std::string help((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  in.close();
  std::error_code ec;
  fs::remove(scratch, ec);
  return rc != 0 || help.find("--llc") != std::string::npos;
}

std::string shell_line(const std::vector<std::string>& env, const std::vector<std::string>& argv) {
  std::string line;
  const auto quoted = [](const std::string& s) {
    if (!s.empty() && s.find_first_of(" \t'\"$\\*?;&|<>()") == std::string::npos) return s;
    std::string q = "'";
    for (char c : s) q += c == '\'' ? std::string("'\\''") : std::string(1, c);
    return q + "'";
  };
  for (const std::string& e : env) line += quoted(e) + " ";
  for (std::size_t i = 0; i < argv.size(); ++i) line += (i ? " " : "") + quoted(argv[i]);
  return line;
}

std::string last_line(const std::string& path) {
  std::ifstream in(path);
  std::string line, last;
  while (std::getline(in, line))
    if (!line.empty()) last = line;
  return last;
}

// The shortest text that reads back as v (0.05, not 0.050000000000000003).
std::string exact_text(double v) {
  char text[32];
  return std::string(text, std::to_chars(text, text + sizeof text, v).ptr);
}

std::string this_binary() {
  std::error_code ec;
  const fs::path self = fs::read_symlink("/proc/self/exe", ec);
  if (ec) throw std::runtime_error("cannot find this kvbench (/proc/self/exe): " + ec.message());
  return self.string();
}

}  // namespace

int ab_main(const std::vector<std::string>& all_args) {
  const auto split = std::find(all_args.begin(), all_args.end(), "--");
  const std::vector<std::string> args(all_args.begin(), split);
  const std::vector<std::string> common(split == all_args.end() ? split : split + 1, all_args.end());

  po::options_description desc(
      "kvbench ab: two arms in alternating rounds on this machine, then kvbench compare in rounds mode\n\n"
      "Usage: kvbench ab --dir DIR [arm options] -- <kvbench run options both arms share>\n"
      "  e.g. kvbench ab --dir ab-pf --new-args '--sw-prefetch none' -- --model qwen3-0.6b --context auto\n"
      "       kvbench ab --dir ab-build --base ./kvbench-main --new build/kvbench -- --config ci-smoke\n"
      "       kvbench ab --dir ab-layout --base main/b0/kvbench,main/b64/kvbench --new b0/kvbench,b64/kvbench -- ...\n\n"
      "Round r runs base then new (odd r) or new then base (even r), each a kvbench run into\n"
      "DIR/<arm>-<r>.csv (its output in DIR/<arm>-<r>.log); DIR/commands.txt lists every command,\n"
      "DIR/compare.md the verdict. Every run gets the --llc decided once before the first, unless\n"
      "--llc is among the options here (one in a --config file is overridden); against a binary\n"
      "whose run takes no --llc (an older build, sized from hwloc's LLC) the other arm gets\n"
      "--llc hwloc. Exit status: compare's (1 where new is significantly slower; with --gate kernels, the\n"
      "default, in a kernel row: the ceiling_* rows measure the machine both arms share)");
  desc.add_options()("help,h", "this help")
      ("dir", po::value<std::string>(), "folder for the runs' CSVs, logs and the comparison (new or empty)")
      ("base", po::value<std::string>(), "the base arm's kvbench binary (default: this one), or a comma-separated "
       "list of builds of one source with their code at different addresses (cmake -DKVBENCH_LAYOUT_SHIFT=64, "
       "128, ...), run in turn: round r runs the ((r - 1) mod n)-th")
      ("new", po::value<std::string>(), "the new arm's kvbench binary or binaries, as --base (default: this one)")
      ("base-args", po::value<std::string>()->default_value(""), "run options of the base arm only (one string)")
      ("new-args", po::value<std::string>()->default_value(""), "run options of the new arm only (one string)")
      ("base-env", po::value<std::string>()->default_value(""), "NAME=VALUE[,...] set for the base arm's runs")
      ("new-env", po::value<std::string>()->default_value(""), "NAME=VALUE[,...] set for the new arm's runs "
       "(e.g. KVBENCH_AMX=1)")
      ("rounds", po::value<int>()->default_value(5), "rounds, each one run of each arm (at least 2)")
      ("budget", po::value<double>()->default_value(0),
       "seconds after which no further round starts, once 2 have run (0: all rounds)")
      ("threshold", po::value<double>()->default_value(0.05, "0.05"), "passed to kvbench compare")
      ("alpha", po::value<double>()->default_value(0.05, "0.05"), "passed to kvbench compare")
      ("p-adjust", po::value<std::string>()->default_value("holm"), "passed to kvbench compare (holm, none)")
      ("gate", po::value<std::string>()->default_value("kernels"),
       "passed to kvbench compare: kernels (ceiling rows do not set the exit status) or all (they do: an A/B "
       "of the ceilings' own code)");
  po::variables_map vm;
  if (parse_layered_or_help(args, desc, &vm, "custom")) return 0;
  if (!vm.count("dir")) throw UsageError("kvbench ab needs --dir, the folder for its runs");
  const fs::path dir = vm["dir"].as<std::string>();
  const int rounds = vm["rounds"].as<int>();
  if (rounds < 2) throw UsageError("--rounds " + std::to_string(rounds) + ": rounds pair the arms, at least 2 are needed");
  const double budget = vm["budget"].as<double>();
  if (!(budget >= 0)) throw UsageError("bad value for --budget: expected seconds >= 0");
  // compare's options are checked here, before the first run rather than after the last.
  const double threshold = vm["threshold"].as<double>(), alpha = vm["alpha"].as<double>();
  if (!(threshold >= 0)) throw UsageError("bad value for --threshold: expected a relative change >= 0");
  if (!(alpha > 0 && alpha < 1)) throw UsageError("bad value for --alpha: expected a level between 0 and 1");
  const std::string p_adjust = vm["p-adjust"].as<std::string>();
  const std::string gate = vm["gate"].as<std::string>();
  if (gate != "kernels" && gate != "all") throw UsageError("--gate: unknown value '" + gate + "' (kernels, all)");
  if (p_adjust != "holm" && p_adjust != "none")
    throw UsageError("--p-adjust: unknown adjustment '" + p_adjust + "' (holm, none)");
  std::error_code ec;
  if (fs::exists(dir, ec) && !(fs::is_directory(dir, ec) && fs::is_empty(dir, ec)))
    throw UsageError("'" + dir.string() + "' exists and is not an empty folder; kvbench never overwrites results: "
                     "choose another --dir");

  const std::string self = this_binary();
  std::vector<Arm> arms(2);
  for (std::size_t i = 0; i < 2; ++i) {
    Arm& a = arms[i];
    a.name = i == 0 ? "base" : "new";
    a.binaries = vm.count(a.name) ? split_list(vm[a.name].as<std::string>(), "--" + a.name)
                                  : std::vector<std::string>{self};
    for (const std::string& binary : a.binaries) {
      if (::access(binary.c_str(), X_OK) != 0)
        throw UsageError("--" + a.name + " '" + binary + "' is not an executable file");
    }
    a.args = po::split_unix(vm[a.name + "-args"].as<std::string>());
    a.env = env_list(vm[a.name + "-env"].as<std::string>(), a.name + "-env");
  }
  for (const char* option : {"--out", "--append", "--resume", "--force", "--dry-run"}) {
    for (const std::vector<std::string>* list : std::initializer_list<const std::vector<std::string>*>{
             &common, &arms[0].args, &arms[1].args}) {
      if (names_option(*list, option))
        throw UsageError(std::string("kvbench ab names each run's file itself: leave out ") + option);
    }
  }
  fs::create_directories(dir);
  bool takes_llc[2];
  for (std::size_t i = 0; i < 2; ++i) {
    const Arm& a = arms[i];
    takes_llc[i] = run_takes_llc(a, a.binaries.front(), dir / (a.name + "-run-help.txt"));
    for (std::size_t b = 1; b < a.binaries.size(); ++b) {
      if (run_takes_llc(a, a.binaries[b], dir / (a.name + "-run-help.txt")) != takes_llc[i])
        throw UsageError("--" + a.name + ": '" + a.binaries.front() + "' and '" + a.binaries[b] +
                         "' differ in whether their run takes --llc: an arm's binaries must be builds of one source");
    }
    if (!takes_llc[i] && (names_option(common, "--llc") || names_option(a.args, "--llc")))
      throw UsageError("--" + a.name + " '" + a.binaries.front() + "' takes no --llc (a build from before "
                       "the option, sized from hwloc's LLC): leave --llc out, and the other arm's runs get "
                       "--llc hwloc");
  }
  // One LLC for every run, unless the options choose one.
  std::vector<std::string> shared = common;
  if (!names_option(common, "--llc") && !names_option(arms[0].args, "--llc") && !names_option(arms[1].args, "--llc")) {
    if (takes_llc[0] && takes_llc[1]) {
      const auto topo = Topology::discover();
      const LlcDecision llc = apply_llc_option(*topo, LlcSetting{});
      shared.push_back("--llc");
      shared.push_back(llc.bytes > 0 ? llc_option_value(llc.bytes) : "hwloc");
      std::fprintf(stderr, "kvbench: ab: every run gets --llc %s\n", shared.back().c_str());
    } else {
      for (std::size_t i = 0; i < 2; ++i)
        if (!takes_llc[i])
          std::fprintf(stderr, "kvbench: ab: %s takes no --llc (a build from before it): it sizes from hwloc's LLC\n",
                       arms[i].binaries.front().c_str());
      for (std::size_t i = 0; i < 2; ++i) {
        if (!takes_llc[i]) continue;
        arms[i].args.insert(arms[i].args.begin(), {"--llc", "hwloc"});
        std::fprintf(stderr, "kvbench: ab: so the %s arm's runs get --llc hwloc\n", arms[i].name.c_str());
      }
    }
  }

  std::ofstream commands(dir / "commands.txt");
  commands << "# kvbench ab, " << rounds << " rounds; exit status and seconds after each command\n";
  std::map<std::string, std::vector<std::string>> files;
  const auto start = std::chrono::steady_clock::now();
  const auto seconds_since = [](std::chrono::steady_clock::time_point t) {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - t).count();
  };
  int done = 0;
  for (int r = 1; r <= rounds; ++r) {
    if (budget > 0 && r > 2 && seconds_since(start) > budget) break;
    std::string progress = "kvbench: ab round " + std::to_string(r) + "/" + std::to_string(rounds) + ":";
    for (int k = 0; k < 2; ++k) {
      const Arm& a = arms[static_cast<std::size_t>(r % 2 == 1 ? k : 1 - k)];
      const std::string stem = (dir / (a.name + "-" + std::to_string(r))).string();
      std::vector<std::string> argv = {a.binaries[static_cast<std::size_t>(r - 1) % a.binaries.size()], "run"};
      argv.insert(argv.end(), shared.begin(), shared.end());
      argv.insert(argv.end(), a.args.begin(), a.args.end());
      argv.insert(argv.end(), {"--out", stem + ".csv"});
      const auto t0 = std::chrono::steady_clock::now();
      const int rc = run_process(argv, child_environment(a.env), stem + ".log");
      const double took = seconds_since(t0);
      char tail[64];
      std::snprintf(tail, sizeof tail, "  # rc %d, %.1f s", rc, took);
      commands << shell_line(a.env, argv) << tail << "\n" << std::flush;
      if (rc != 0) {
        const std::string why = "round " + std::to_string(r) + "'s " + a.name + " run exited " + std::to_string(rc) +
                                " (" + stem + ".log: " + last_line(stem + ".log") + ")";
        if (rc == kExitUsage) throw UsageError(why);
        throw std::runtime_error(why);
      }
      files[a.name].push_back(stem + ".csv");
      char part[64];
      std::snprintf(part, sizeof part, " %s %.1f s", a.name.c_str(), took);
      progress += part;
    }
    std::fprintf(stderr, "%s\n", progress.c_str());
    ++done;
  }

  const auto joined = [](const std::vector<std::string>& v) {
    std::string s;
    for (const std::string& f : v) s += (s.empty() ? "" : ",") + f;
    return s;
  };
  std::vector<std::string> compare = {self, "compare", joined(files["base"]), joined(files["new"]),
                                      "--threshold", exact_text(threshold), "--alpha", exact_text(alpha),
                                      "--p-adjust", p_adjust, "--gate", gate};
  std::vector<std::string> to_file = compare;
  to_file.insert(to_file.end(), {"--format", "md", "--out", (dir / "compare.md").string()});
  commands << shell_line({}, to_file) << "\n";
  std::fprintf(stderr, "kvbench: ab: %d rounds in %.0f s; %s\n", done, seconds_since(start),
               (dir / "compare.md").c_str());
  const int written = run_process(to_file, child_environment({}), (dir / "compare.log").string());
  if (written != 0 && written != 1) {
    throw std::runtime_error("kvbench compare exited " + std::to_string(written) + " (" +
                             (dir / "compare.log").string() + ": " + last_line((dir / "compare.log").string()) + ")");
  }
  return run_process(compare, child_environment({}), "");
}

}  // namespace kvb
