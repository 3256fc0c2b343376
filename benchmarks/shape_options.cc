#include "benchmarks/shape_options.h"

#include "benchmarks/usage_error.h"
#include "benchmarks/value_list.h"

namespace kvb {
namespace po = boost::program_options;

po::options_description shape_options() {
  po::options_description d("Model and shape (lists are comma-separated; their product is swept)");
  d.add_options()
      ("config", po::value<std::string>(), "INI file of options (command line overrides it)")
      ("model", po::value<std::string>(), "model preset from configs/models (custom = none)")
      ("layers", po::value<std::string>(), "transformer layers")
      ("q-heads", po::value<std::string>(), "query heads")
      ("kv-heads", po::value<std::string>(), "KV heads (q-heads must be a multiple)")
      ("head-dim", po::value<std::string>(), "elements per head")
      ("context", po::value<std::string>(), "cached positions attended per step, or auto")
      ("max-context", po::value<std::string>(), "model context limit (capacity)")
      ("window", po::value<std::string>(),
       "sliding attention window W: the cache is a ring of W positions (0 = full; list)")
      ("sliding-pattern", po::value<std::string>(),
       "hybrid models: S:G = of every S+G layers the first S use the window, the other G "
       "attend to the whole context (Gemma 2: 1:1, Gemma 3: 5:1)")
      ("hidden-size", po::value<std::string>(), "model hidden size (weight traffic)")
      ("intermediate-size", po::value<std::string>(), "MLP intermediate size (weight traffic)")
      ("mlp-matrices", po::value<std::string>(), "MLP weight matrices: 3 gated, 2 plain")
      ("weight-bytes", po::value<std::string>(), "bytes per weight element")
      ("dtype", po::value<std::string>()->default_value("fp32"),
       "fp32,fp16,bf16,int8,fp8_e4m3,fp8_e5m2,int4; all = the first four, extended = every one. "
       "int8 attention scores use AMX-INT8 when the environment has KVBENCH_AMX=1 and the CPU and "
       "OS allow it (off by default; the CSV isa column then ends in +AMX-INT8)")
      ("layout", po::value<std::string>()->default_value("head_major"),
       "head_major,position_major");
  return d;
}

namespace {

std::vector<std::int64_t> list_of(const po::variables_map& vm, const char* name) {
  if (!vm.count(name)) return {};
  return parse_positive_list(vm[name].as<std::string>(), name);
}

std::int64_t scalar_of(const po::variables_map& vm, const char* name, std::int64_t fallback,
                       bool zero_ok = false) {
  if (!vm.count(name)) return fallback;
  const std::string text = vm[name].as<std::string>();
  if (zero_ok && text == "0") return 0;
  return parse_positive(text, name);
}

}  // namespace

SweepSpec sweep_spec_from(const po::variables_map& vm) {
  SweepSpec spec;
  if (vm.count("model")) spec.model = vm["model"].as<std::string>();
  spec.layers = list_of(vm, "layers");
  spec.q_heads = list_of(vm, "q-heads");
  spec.kv_heads = list_of(vm, "kv-heads");
  spec.head_dim = list_of(vm, "head-dim");
  if (vm.count("context") && vm["context"].as<std::string>() == "auto") {
    spec.context_auto = true;
  } else {
    spec.context = list_of(vm, "context");
  }
  spec.max_context = scalar_of(vm, "max-context", 0);
  if (vm.count("window")) {
    spec.window.clear();
    for (const std::string& item : split_list(vm["window"].as<std::string>(), "window")) {
      spec.window.push_back(item == "0" ? 0 : parse_positive(item, "window"));
    }
  }
  if (vm.count("sliding-pattern")) {
    const std::string text = vm["sliding-pattern"].as<std::string>();
    const std::size_t colon = text.find(':');
    const auto bad = [&] {
      return UsageError("bad value '" + text +
                        "' for --sliding-pattern: expected S:G with S >= 1 sliding and G >= 0 "
                        "global layers, e.g. 5:1");
    };
    if (colon == std::string::npos) throw bad();
    const std::string g = text.substr(colon + 1);
    try {
      spec.sliding_layers = parse_positive(text.substr(0, colon), "sliding-pattern");
      spec.global_layers = g == "0" ? 0 : parse_positive(g, "sliding-pattern");
    } catch (const UsageError&) {
      throw bad();
    }
  }
  spec.hidden_size = scalar_of(vm, "hidden-size", 0);
  spec.intermediate_size = scalar_of(vm, "intermediate-size", 0);
  spec.mlp_matrices = scalar_of(vm, "mlp-matrices", 3);
  spec.weight_bytes = scalar_of(vm, "weight-bytes", 2);

  spec.dtypes.clear();
  const std::string dtypes = vm["dtype"].as<std::string>();
  if (dtypes == "all") {
    spec.dtypes.assign(std::begin(kAllDTypes), std::end(kAllDTypes));
  } else if (dtypes == "extended") {
    spec.dtypes.assign(std::begin(kExtendedDTypes), std::end(kExtendedDTypes));
  } else {
    for (const std::string& name : split_list(dtypes, "dtype")) {
      DType t;
      if (!parse_dtype(name, &t)) {
        throw UsageError("bad value '" + name + "' for --dtype: expected fp32, fp16, bf16, int8, "
                         "fp8_e4m3, fp8_e5m2, int4, all or extended");
      }
      spec.dtypes.push_back(t);
    }
  }
  spec.layouts.clear();
  for (const std::string& name : split_list(vm["layout"].as<std::string>(), "layout")) {
    Layout l;
    if (!parse_layout(name.c_str(), &l)) {
      throw UsageError("bad value '" + name +
                       "' for --layout: expected head_major or position_major");
    }
    spec.layouts.push_back(l);
  }
  if (vm.count("threads")) {
    spec.threads = split_list(vm["threads"].as<std::string>(), "threads");
    // Checked here, before the machine probe that resolves "all", so a bad count fails at once.
    for (const std::string& item : spec.threads)
      if (item != "all") parse_positive(item, "threads");
  }
  if (vm.count("pin")) spec.pins = split_list(vm["pin"].as<std::string>(), "pin");
  if (vm.count("cache-state")) {
    spec.cache_states.clear();
    for (const std::string& name : split_list(vm["cache-state"].as<std::string>(), "cache-state")) {
      CacheState s;
      if (!parse_cache_state(name, &s)) {
        throw UsageError("bad value '" + name +
                         "' for --cache-state: expected warm, cold, weights or fresh");
      }
      spec.cache_states.push_back(s);
    }
  }
  return spec;
}

}  // namespace kvb
