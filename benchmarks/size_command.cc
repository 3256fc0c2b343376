// kvbench size: KV-cache bytes for presets or explicit shapes, without running anything.
#include <cstdio>
#include <iostream>

#include <boost/program_options.hpp>

#include "benchmarks/commands.h"
#include "benchmarks/kv_sizing.h"
#include "benchmarks/machine_probe.h"
#include "benchmarks/model_presets.h"
#include "benchmarks/option_parser.h"
#include "benchmarks/shape_options.h"
#include "benchmarks/usage_error.h"
#include "benchmarks/value_list.h"
#include "harness/topology.h"

namespace kvb {
namespace po = boost::program_options;

namespace {

// printf into a string: the table is printed once every model's shape has been read, so a bad
// value (say --context -5) leaves no partial table on stdout.
template <class... A>
void appendf(std::string* out, const char* format, A... args) {
  const int n = std::snprintf(nullptr, 0, format, args...);
  if (n <= 0) return;
  std::string text(static_cast<std::size_t>(n), '\0');
  std::snprintf(text.data(), text.size() + 1, format, args...);
  *out += text;
}

std::string human_bytes(std::int64_t bytes) {
  const char* units[] = {"B", "KiB", "MiB", "GiB", "TiB"};
  double v = static_cast<double>(bytes);
  int u = 0;
  while (v >= 1024.0 && u < 4) {
    v /= 1024.0;
    ++u;
  }
  char text[32];
  std::snprintf(text, sizeof text, u == 0 ? "%.0f %s" : "%.2f %s", v, units[u]);
  return text;
}

}  // namespace

int size_main(const std::vector<std::string>& args) {
  po::options_description desc("kvbench size: KV-cache sizing without running\n\n"
                               "Usage: kvbench size [--model NAME[,NAME...]|all] [shape options]");
  po::options_description sizing("Sizing");
  sizing.add_options()
      ("help,h", "this help")
      ("block-size", po::value<std::string>(), "paged-cache block size in positions (rounds up)")
      ("users", po::value<std::string>()->default_value("1"), "concurrent sequences")
      ("format", po::value<std::string>()->default_value("table"), "table or csv")
      ("llc", po::value<std::string>()->default_value("hwloc"),
       "LLC that fits_llc is held to: hwloc (nothing runs), auto or measure (reads one core's "
       "bandwidth first, as kvbench run does), or a size such as 32MiB");
  desc.add(sizing).add(shape_options());

  po::variables_map top;
  parse_layered(args, desc, &top, "custom");
  if (top.count("help")) {
    std::cout << desc << "\nWithout --model or a shape, every preset is sized. int8 sizes include "
                         "one fp32 scale per row.\n";
    return 0;
  }
  const std::string format = top["format"].as<std::string>();
  if (format != "table" && format != "csv") {
    throw UsageError("bad value '" + format + "' for --format: expected table or csv");
  }
  const std::int64_t users = parse_positive(top["users"].as<std::string>(), "users");
  const std::int64_t block =
      top.count("block-size") ? parse_positive(top["block-size"].as<std::string>(), "block-size") : 0;

  std::vector<std::string> models;
  if (top.count("model")) {
    const std::string m = top["model"].as<std::string>();
    models = m == "all" ? preset_names() : split_list(m, "model");
  } else if (!top.count("layers")) {
    models = preset_names();
  } else {
    models = {"custom"};
  }

  const LlcSetting llc = llc_option(top["llc"].as<std::string>());
  const auto topo = Topology::discover();
  if (llc.policy != LlcPolicy::kHwloc) apply_llc_option(*topo, llc);  // hwloc: nothing runs
  const MachineFacts machine = probe_machine(*topo);

  std::string out;
  if (format == "csv") {
    out += "model,layers,q_heads,kv_heads,head_dim,context,window,positions,block_size,dtype,"
                 "bytes_per_token,bytes_per_layer,total_bytes,mha_total_bytes,gqa_saving_pct,"
                 "users,users_total_bytes,fits_llc,fits_ram\n";
  } else {
    appendf(&out, "%-14s %6s %6s %7s %5s %5s %11s %11s %11s %7s %11s %4s %4s\n", "model",
                "layers", "q/kv", "ctx", "W", "dtype", "B/token", "per layer", "total",
                "GQA sv", "x users", "LLC", "RAM");
  }
  bool beyond_max = false;
  for (const std::string& model : models) {
    po::variables_map vm;
    parse_layered(args, desc, &vm, model);
    SweepSpec spec = sweep_spec_from(vm);
    spec.model = model;
    if (spec.layers.empty() || spec.q_heads.empty() || spec.kv_heads.empty() ||
        spec.head_dim.empty() || spec.context.empty()) {
      throw UsageError("incomplete shape for size: give --model or all of --layers, --q-heads, "
                       "--kv-heads, --head-dim, --context");
    }
    for (std::int64_t layers : spec.layers)
    for (std::int64_t q_heads : spec.q_heads)
    for (std::int64_t kv_heads : spec.kv_heads)
    for (std::int64_t head_dim : spec.head_dim)
    for (std::int64_t context : spec.context)
    for (std::int64_t window_w : spec.window)
    for (DType dtype : spec.dtypes) {
      if (q_heads % kv_heads != 0) {
        throw UsageError("q_heads " + std::to_string(q_heads) + " is not a multiple of kv_heads " +
                         std::to_string(kv_heads));
      }
      SizingRequest req;
      req.shape.model = model;
      req.shape.layers = layers;
      req.shape.q_heads = q_heads;
      req.shape.kv_heads = kv_heads;
      req.shape.head_dim = head_dim;
      req.shape.context = context;
      req.shape.window = window_w;
      req.shape.sliding_layers = spec.sliding_layers;
      req.shape.global_layers = spec.global_layers;
      req.dtype = dtype;
      req.block_size = block;
      req.users = users;
      const SizingResult r = size_kv_cache(req, machine);
      // Hybrid: the window column says which layers use it, e.g. "4096/5:1".
      std::string window = window_w > 0 ? std::to_string(window_w) : "";
      if (window_w > 0 && spec.global_layers > 0) {
        window += "/" + std::to_string(spec.sliding_layers) + ":" + std::to_string(spec.global_layers);
      }
      if (format == "csv") {
        appendf(&out, "%s,%lld,%lld,%lld,%lld,%lld,%s,%lld,%s,%s,%lld,%lld,%lld,%lld,%.2f,%lld,%lld,%d,%d\n",
                    model.c_str(), (long long)layers, (long long)q_heads, (long long)kv_heads,
                    (long long)head_dim, (long long)context, window.c_str(),
                    (long long)r.positions, block > 0 ? std::to_string(block).c_str() : "",
                    dtype_name(dtype), (long long)r.bytes_per_token, (long long)r.bytes_per_layer,
                    (long long)r.total_bytes, (long long)r.mha_total_bytes, r.gqa_saving_pct,
                    (long long)users, (long long)r.users_total_bytes, r.fits_llc ? 1 : 0,
                    r.fits_ram ? 1 : 0);
      } else {
        const std::string heads = std::to_string(q_heads) + "/" + std::to_string(kv_heads);
        std::string ctx = std::to_string(context);
        if (spec.max_context > 0 && context > spec.max_context) {
          ctx += "*";
          beyond_max = true;
        }
        appendf(&out, "%-14s %6lld %6s %7s %5s %5s %11s %11s %11s %6.1f%% %11s %4s %4s\n",
                    model.c_str(), (long long)layers, heads.c_str(), ctx.c_str(),
                    window.c_str(), dtype_name(dtype), human_bytes(r.bytes_per_token).c_str(),
                    human_bytes(r.bytes_per_layer).c_str(), human_bytes(r.total_bytes).c_str(),
                    r.gqa_saving_pct, human_bytes(r.users_total_bytes).c_str(),
                    r.fits_llc ? "yes" : "no", r.fits_ram ? "yes" : "no");
      }
    }
  }
  if (format == "table") {
    if (beyond_max) out += "* context beyond the model's max-context\n";
    appendf(&out, "\nLLC %s (%s), MemAvailable %s (this machine); users = %lld%s\n",
                human_bytes(machine.llc_bytes).c_str(), topo->llc_source().c_str(), human_bytes(machine.mem_available).c_str(),
                (long long)users, block > 0 ? (", block " + std::to_string(block)).c_str() : "");
  }
  std::fputs(out.c_str(), stdout);
  return 0;
}

}  // namespace kvb
