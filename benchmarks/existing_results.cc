#include "benchmarks/existing_results.h"

#include <exception>
#include <map>
#include <vector>

#include <libfccp/csv.h>

#include "benchmarks/result_rows.h"
#include "benchmarks/usage_error.h"

namespace kvb {

std::string machine_identity(const std::string& cpu_vendor, const std::string& cpu_model,
                             const std::string& cpu_signature, const std::string& pus_total) {
  const std::string signature = cpu_signature.empty() ? "" : " (" + cpu_signature + ")";
  return cpu_vendor + " " + cpu_model + signature + ", " + pus_total + " PUs";
}

ExistingResults read_existing_results(const std::string& path, int repetitions) {
  ExistingResults out;
  std::map<std::string, int> repetition_rows;
  std::set<std::string> has_cv;
  try {
    io::CSVReader<23> in(path);
    // cpu_signature came later in schema version 1: files without it read it as empty.
    in.read_header(io::ignore_extra_column | io::ignore_missing_column, "schema_version",
                   "benchmark", "model", "layout", "dtype", "layers", "q_heads", "kv_heads",
                   "head_dim", "context", "window", "batch", "threads", "pin", "cache_state",
                   "aggregate", "valid", "repetition", "cpu_vendor", "cpu_model", "pus_total",
                   "cpu_signature", "isa");
    for (const char* required :
         {"schema_version", "benchmark", "model", "layout", "dtype", "layers", "q_heads",
          "kv_heads", "head_dim", "context", "window", "batch", "threads", "pin", "cache_state",
          "aggregate", "valid", "repetition", "cpu_vendor", "cpu_model", "pus_total"}) {
      if (!in.has_column(required))
        throw UsageError("cannot resume from '" + path + "': it has no column '" + required + "'");
    }
    std::string schema, benchmark, model, layout, dtype, layers, q_heads, kv_heads, head_dim,
        context, window, batch, threads, pin, cache_state, aggregate, valid, repetition,
        cpu_vendor, cpu_model, pus_total, cpu_signature, isa;
    while (in.read_row(schema, benchmark, model, layout, dtype, layers, q_heads, kv_heads,
                       head_dim, context, window, batch, threads, pin, cache_state, aggregate,
                       valid, repetition, cpu_vendor, cpu_model, pus_total, cpu_signature, isa)) {
      if (schema != "1") {
        throw UsageError("results file '" + path + "' has schema_version '" + schema +
                         "', this kvbench writes 1");
      }
      out.machines.insert(machine_identity(cpu_vendor, cpu_model, cpu_signature, pus_total));
      out.isas.insert(isa);
      if (benchmark.rfind("ceiling_", 0) == 0) continue;
      const CsvRow row = {{"benchmark", benchmark}, {"model", model}, {"layout", layout},
                          {"dtype", dtype}, {"layers", layers}, {"q_heads", q_heads},
                          {"kv_heads", kv_heads}, {"head_dim", head_dim}, {"context", context},
                          {"window", window}, {"batch", batch}, {"threads", threads},
                          {"pin", pin}, {"cache_state", cache_state}};
      const std::string key = config_key(row);
      if (aggregate == "none") ++repetition_rows[key];
      if (aggregate == "cv") has_cv.insert(key);
    }
  } catch (const UsageError&) {
    throw;
  } catch (const std::exception& e) {
    throw UsageError("cannot resume from '" + path + "': " + e.what());
  }
  for (const auto& [key, count] : repetition_rows) {
    if (count >= repetitions && (repetitions == 1 || has_cv.count(key))) out.complete.insert(key);
  }
  return out;
}

std::set<RecordedLlc> read_recorded_llc(const std::string& path) {
  std::set<RecordedLlc> out;
  try {
    io::CSVReader<6> in(path);
    in.read_header(io::ignore_extra_column | io::ignore_missing_column, "cpu_vendor", "cpu_model",
                   "cpu_signature", "pus_total", "llc_bytes", "llc_source");
    if (!in.has_column("llc_bytes")) return out;
    std::string vendor, model, signature, pus, bytes, source;
    while (in.read_row(vendor, model, signature, pus, bytes, source)) {
      RecordedLlc r;
      r.machine = machine_identity(vendor, model, signature, pus);
      r.bytes = bytes.empty() ? 0 : std::stoll(bytes);
      r.source = source.empty() ? "hwloc" : source;
      out.insert(std::move(r));
    }
  } catch (const std::exception&) {
    // Unreadable from here on: what was read stands, and --resume's full read names the problem.
  }
  return out;
}

std::optional<LlcSetting> llc_setting_of_file(const std::set<RecordedLlc>& recorded,
                                              const std::string& here, const std::string& path,
                                              std::string* note) {
  std::set<std::pair<std::int64_t, std::string>> sizes;  // hwloc's rows are one, whatever their bytes
  for (const RecordedLlc& r : recorded) {
    if (r.machine != here) return std::nullopt;  // --resume refuses it; --append mixes on purpose
    if (r.source == "hwloc") {
      sizes.insert({0, r.source});
    } else if (r.bytes > 0) {
      sizes.insert({r.bytes, r.source});
    }
  }
  if (sizes.empty()) return std::nullopt;
  if (sizes.size() > 1) {
    if (note != nullptr) {
      *note = "the rows of '" + path + "' were sized from " + std::to_string(sizes.size()) +
              " different LLCs (";
      for (const auto& [bytes, source] : sizes)
        *note += (note->back() == '(' ? "" : ", ") + (bytes ? std::to_string(bytes) + " bytes " : "") + source;
      *note += "), so --llc auto decides afresh; give --llc to choose";
    }
    return std::nullopt;
  }
  LlcSetting s;
  s.policy = LlcPolicy::kRecorded;
  s.bytes = sizes.begin()->first;
  s.source = sizes.begin()->second;
  s.recorded_in = path;
  return s;
}

}  // namespace kvb
