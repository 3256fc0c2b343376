#include "benchmarks/option_parser.h"

#include <filesystem>
#include <fstream>
#include <iostream>

#include <boost/program_options/errors.hpp>
#include <boost/program_options/parsers.hpp>

#include "benchmarks/model_presets.h"
#include "benchmarks/option_suggestion.h"
#include "benchmarks/usage_error.h"

namespace kvb {
namespace po = boost::program_options;

namespace {

[[noreturn]] void throw_unknown(const po::unknown_option& e, const po::options_description& desc,
                                const std::string& where) {
  std::string name = e.get_option_name();
  std::string message = "unknown option '" + name + "'" + where;
  const std::string suggestion = closest_name(name, option_names(desc));
  if (!suggestion.empty()) message += "; did you mean '--" + suggestion + "'?";
  throw UsageError(message);
}

}  // namespace

void store_config_file(const std::string& path, const po::options_description& desc,
                       po::variables_map* vm) {
  std::error_code ec;
  if (!std::filesystem::is_regular_file(path, ec)) {
    throw UsageError("config file '" + path + "' does not exist or is not a file");
  }
  std::ifstream in(path);
  if (!in) throw UsageError("cannot read config file '" + path + "'");
  try {
    po::store(po::parse_config_file(in, desc, /*allow_unregistered=*/false), *vm);
  } catch (const po::unknown_option& e) {
    throw_unknown(e, desc, " in " + path);
  } catch (const po::error& e) {
    throw UsageError(std::string(e.what()) + " (in " + path + ")");
  }
}

void parse_layered(const std::vector<std::string>& args, const po::options_description& desc,
                   po::variables_map* vm, const std::string& model) {
  try {
    const po::parsed_options parsed = po::command_line_parser(args).options(desc).run();
    // Without a positional description, store() drops bare words silently: "run run ..." or
    // "--context 5 6" would run without a word of what was meant.
    for (const po::option& o : parsed.options)
      if (o.position_key >= 0)
        throw UsageError("unexpected argument '" + (o.original_tokens.empty() ? std::string() : o.original_tokens[0]) +
                         "': every setting is an option (--name value); separate list values with commas");
    po::store(parsed, *vm);
  } catch (const po::unknown_option& e) {
    throw_unknown(e, desc, "");
  } catch (const po::error& e) {
    throw UsageError(e.what());
  }
  if (desc.find_nothrow("config", false) != nullptr && vm->count("config")) {
    store_config_file(sweep_path((*vm)["config"].as<std::string>()).string(), desc, vm);
  }
  std::string preset = model;
  if (preset.empty() && vm->count("model")) preset = (*vm)["model"].as<std::string>();
  if (!preset.empty() && preset != "custom") {
    store_config_file(preset_path(preset).string(), desc, vm);
  }
  try {
    po::notify(*vm);
  } catch (const po::error& e) {
    throw UsageError(e.what());
  }
}

bool parse_layered_or_help(const std::vector<std::string>& args, const po::options_description& desc,
                           po::variables_map* vm, const std::string& model) {
  parse_layered(args, desc, vm, model);
  if (vm->count("help") == 0) return false;
  std::cout << desc << "\n";
  return true;
}

}  // namespace kvb
