#include "analysis/efficiency_targets.h"

#include <algorithm>
#include <map>
#include <set>
#include <tuple>

#include "analysis/display_order.h"
#include "analysis/huge_pages.h"
#include "analysis/peer_comparison.h"
#include "analysis/run_ceilings.h"

namespace kvb {
namespace {

// One judged row (or pair of rows) before pooling into lines.
struct Sample {
  TargetKind kind = TargetKind::kDramStreaming;
  const ResultRow* row = nullptr;
  const ResultRow* partner = nullptr;
  std::optional<double> value;  // nullopt: unmeasured (see `missing`) or invalid
  std::string missing;          // what an unmeasured row lacks
  int group_size = 0;           // GQA only
  std::string benchmark;        // the line's benchmark; empty: the row's
  std::optional<double> fastest;  // DRAM/LLC: the value for the fastest repetition
  std::optional<double> peak_bound;  // DRAM/LLC/GQA: the value at the FP32 FMA peak (TargetLine)
  std::optional<double> barrier_bound;  // DRAM/LLC: the value at the ceiling plus the barriers (TargetLine)
};

Sample sample(TargetKind kind, const ResultRow* row, const ResultRow* partner, std::optional<double> value,
              std::string missing) {
  Sample s;
  s.kind = kind;
  s.row = row;
  s.partner = partner;
  s.value = value;
  s.missing = std::move(missing);
  return s;
}

int dtype_rank(const std::string& dtype) {
  return rank_in(dtype, {"fp32", "fp16", "bf16", "int8", "fp8_e4m3", "fp8_e5m2", "int4"});
}

int benchmark_rank(const std::string& benchmark) { return rank_in(benchmark, {"decode_step", "attention"}); }

int threads_of(const ResultRow& r) { return static_cast<int>(r.num_or(Col::threads, 0)); }

std::optional<double> ws_over_llc(const MachineResults& m, const ResultRow& r) {
  const auto ws = r.num(Col::working_set_bytes);
  const auto llc = r.num(Col::llc_bytes) ? r.num(Col::llc_bytes) : m.llc_bytes;
  if (!ws || !llc || !(*llc > 0)) return std::nullopt;
  return *ws / *llc;
}

std::optional<double> percent(std::optional<double> gbps, std::optional<double> ceiling) {
  if (!gbps || !ceiling || !(*ceiling > 0)) return std::nullopt;
  return 100 * *gbps / *ceiling;
}

// Bytes written per second (bytes_written / ns_per_step).
std::optional<double> written_gbps(const ResultRow& r) {
  const auto bytes = r.num(Col::bytes_written), ns = r.num(Col::ns_per_step);
  if (!bytes || !ns || !(*ns > 0)) return std::nullopt;
  return *bytes / *ns;
}

// The least time (ns) a row's flops take at the machine's FP32 FMA peak for its thread count
// (flop / (GFLOP/s) = ns); nullopt without both.
std::optional<double> fma_floor_ns(const MachineResults& m, const ResultRow& r) {
  const auto flops = r.num(Col::flops);
  const auto peak = m.fma_peak(threads_of(r));
  if (!flops || !(*flops > 0) || !peak || !(*peak > 0)) return std::nullopt;
  return *flops / *peak;
}

// A bandwidth percentage scaled to the time the row's flops take at the FMA peak.
std::optional<double> percent_at_peak(const MachineResults& m, const ResultRow& r, std::optional<double> pct) {
  const auto floor = fma_floor_ns(m, r);
  const auto ns = r.num(Col::ns_per_step);
  if (!pct || !floor || !ns) return std::nullopt;
  return *pct * *ns / *floor;
}

// A bandwidth percentage if the row's bytes took what they take at its ceiling (ns x pct / 100)
// plus one crossing of its run's measured barrier per layer.
std::optional<double> percent_with_barriers(const RunCeilings& ceilings, const ResultRow& r,
                                            std::optional<double> pct) {
  const auto crossing = ceilings.barrier_ns(r);
  const auto ns = r.num(Col::ns_per_step), layers = r.num(Col::layers);
  if (!pct || !crossing || !ns || !layers || !(*layers > 0)) return std::nullopt;
  const double at_ceiling = *ns * *pct / 100;
  return 100 * at_ceiling / (at_ceiling + *layers * *crossing);
}

std::optional<double> time_ratio(const ResultRow& num, const ResultRow& den) {
  const auto a = num.num(Col::ns_per_step), b = den.num(Col::ns_per_step);
  if (!a || !b || !(*b > 0)) return std::nullopt;
  return *a / *b;
}

void bandwidth_targets(const MachineResults& m, const RunCeilings& ceilings, std::vector<Sample>* out,
                       int* left_out) {
  const std::string llc = llc_level(m);
  for (std::size_t i = 0; i < m.summaries.size(); ++i) {
    const ResultRow& r = m.summaries[i];
    const std::string& bench = r.str(Col::benchmark);
    if ((bench == "decode_step" || bench == "attention") && beyond_streaming_group(r)) {
      const auto ratio = ws_over_llc(m, r);
      if ((bench == "decode_step" && ratio && *ratio >= 4) || r.str(Col::ws_level) == llc) ++*left_out;
      continue;
    }
    const auto gbps = attained_gbps(r);
    if (bench == "decode_step") {
      if (const auto ratio = ws_over_llc(m, r); ratio && *ratio >= 4) {
        out->push_back(sample(TargetKind::kDramStreaming, &r, nullptr, percent(gbps, ceilings.read_gbps(r, "DRAM")),
                              "a DRAM ceiling_read of its run at its thread count"));
        out->back().fastest = percent(m.fastest_gbps(i), ceilings.read_gbps(r, "DRAM"));
        out->back().peak_bound = percent_at_peak(m, r, out->back().value);
        out->back().barrier_bound = percent_with_barriers(ceilings, r, out->back().value);
      }
    }
    if ((bench == "decode_step" || bench == "attention") && r.str(Col::ws_level) == llc) {
      out->push_back(sample(TargetKind::kLlcResident, &r, nullptr, percent(gbps, ceilings.read_gbps(r, llc)),
                            "an " + llc + " ceiling_read of its run at its thread count"));
      out->back().fastest = percent(m.fastest_gbps(i), ceilings.read_gbps(r, llc));
      out->back().peak_bound = percent_at_peak(m, r, out->back().value);
      out->back().barrier_bound = percent_with_barriers(ceilings, r, out->back().value);
    }
    // A bulk copy is held to the DRAM copy ceiling where the cache it fills is >= 4x the LLC; a
    // prefill of a few tokens measures call overhead, not bandwidth.
    if (bench == "prefill_copy") {
      if (const auto ratio = ws_over_llc(m, r); ratio && *ratio >= 4) {
        out->push_back(sample(TargetKind::kPrefill, &r, nullptr, percent(gbps, ceilings.copy_gbps(r, "DRAM")),
                              "a DRAM ceiling_copy of its run at its thread count"));
        // The copy ceiling reads for ownership before each store, while a large prefill streams
        // its stores and re-reads a cached source: its written bytes against the streaming-store
        // ceiling are the stricter yardstick.
        out->push_back(sample(TargetKind::kPrefillStores, &r, nullptr,
                              percent(written_gbps(r), ceilings.gbps("ceiling_write_nt", r, "DRAM")),
                              "a DRAM ceiling_write_nt of its run at its thread count"));
      }
    }
  }
}

void gqa_target(const MachineResults& m, std::vector<Sample>* out) {
  // Same configuration and run except q_heads; ws_level is left out (same KV bytes).
  std::vector<Col> key_cols = {Col::run_id};
  for (Col c : kConfigColumns) {
    if (c != Col::q_heads && c != Col::ws_level) key_cols.push_back(c);
  }
  std::map<std::string, std::map<int, const ResultRow*>> by_group;  // key -> G -> row
  std::vector<std::string> order;
  for (const ResultRow& r : m.summaries) {
    const std::string& bench = r.str(Col::benchmark);
    if (bench != "decode_step" && bench != "attention") continue;
    const int q = static_cast<int>(r.num_or(Col::q_heads, 0)), kv = static_cast<int>(r.num_or(Col::kv_heads, 0));
    if (q <= 0 || kv <= 0 || q % kv != 0) continue;
    const std::string key = join_columns(r, key_cols);
    if (!by_group.count(key)) order.push_back(key);
    by_group[key].emplace(q / kv, &r);  // first row of a (run, configuration) wins
  }
  // A run without any G = 1 row of a benchmark never attempted the comparison: its rows give no
  // line. In a run with some, a G > 1 configuration lacking its G = 1 partner is partial input.
  const auto run_and_benchmark = [](const ResultRow& r) { return r.str(Col::run_id) + "|" + r.str(Col::benchmark); };
  std::set<std::string> has_base;
  for (const auto& [key, rows] : by_group) {
    if (rows.count(1)) has_base.insert(run_and_benchmark(*rows.at(1)));
  }
  for (const std::string& key : order) {
    const auto& rows = by_group[key];
    if (!has_base.count(run_and_benchmark(*rows.begin()->second))) continue;
    int g = 0;
    for (const auto& [size, row] : rows) {
      if (size >= 2 && size <= kMaxTargetGroupSize) g = size;  // ascending map: ends at the largest G <= 8
    }
    if (g == 0) continue;
    const ResultRow* grouped = rows.at(g);
    const auto base = rows.find(1);
    Sample s = sample(TargetKind::kGqa, grouped, base == rows.end() ? nullptr : base->second, std::nullopt,
                      "a q_heads = kv_heads row of the same configuration and run");
    s.group_size = g;
    if (s.partner) {
      s.value = time_ratio(*grouped, *s.partner);
      const auto floor = fma_floor_ns(m, *grouped);
      const auto base_ns = s.partner->num(Col::ns_per_step);
      if (s.value && floor && base_ns && *base_ns > 0) s.peak_bound = *floor / *base_ns;
    }
    out->push_back(s);
  }
}

std::string fresh_suffix(const std::string& ws_level) {
  if (ws_level == "DRAM") return " (fresh, DRAM)";
  if (ws_level.empty()) return " (fresh)";
  return " (fresh, in cache)";
}

void append_target(const MachineResults& m, std::vector<Sample>* out) {
  const std::vector<Col> key_cols = {Col::model,   Col::layout,  Col::dtype,   Col::layers,    Col::q_heads,
                                     Col::kv_heads, Col::head_dim, Col::context, Col::window,    Col::threads,
                                     Col::pin,     Col::placement, Col::cache_state, Col::run_id};
  std::map<std::string, const ResultRow*> baseline;
  for (const ResultRow& r : m.summaries) {
    if (r.str(Col::benchmark) == "append_memcpy") baseline.emplace(join_columns(r, key_cols), &r);
  }
  for (const ResultRow& r : m.summaries) {
    // Both store kinds are held to the same plain memcpy, each on its own lines.
    const std::string& name = r.str(Col::benchmark);
    if (name != "append" && name != "append_streaming") continue;
    const auto it = baseline.find(join_columns(r, key_cols));
    Sample s = sample(TargetKind::kAppend, &r, it == baseline.end() ? nullptr : it->second, std::nullopt,
                      "an append_memcpy row of the same configuration and run");
    if (s.partner) s.value = time_ratio(r, *s.partner);
    // A new position every step (as in a decode) is a different question from rewriting one
    // slot: its own lines, split by where the slot comes from. Only a cache larger than the LLC
    // (ws_level DRAM) sends it to memory, the case non-temporal stores are for; on a smaller one
    // the slot is still cached, where they lose (results/xeon-emr-16c-kvm/append-streaming/).
    if (r.str(Col::cache_state) == "fresh") s.benchmark = name + fresh_suffix(r.str(Col::ws_level));
    out->push_back(s);
  }
}

void peer_target(const MachineResults& m, std::vector<Sample>* out) {
  for (const PeerComparison& c : compare_with_peers(m)) {
    // The kvbench row is the one judged (its validity counts); the line is named for the peer.
    Sample s = sample(TargetKind::kPeers, c.ours ? c.ours : c.peer, c.ours ? c.peer : nullptr, c.gbps_ratio,
                      "a kvbench decode_step or attention row of the same shape");
    s.benchmark = c.peer->str(Col::benchmark);
    out->push_back(s);
  }
}

// A read-bandwidth row faster than its own ceiling by more than the drift flag: that ceiling did
// not bound it, so the percentage overstates the row. (A prefill may beat its copy ceiling by
// design: the ceiling reads for ownership before each store, the prefill streams its stores.)
bool beats_own_ceiling(const Sample& s) {
  return (s.kind == TargetKind::kDramStreaming || s.kind == TargetKind::kLlcResident) && s.value &&
         *s.value > 100 * (1 + kCeilingDriftFlag);
}

using LineKey = std::tuple<int, int, std::string, int, std::string, int, int>;

LineKey line_key(const TargetLine& l) {
  const std::string dtype = l.dtypes.empty() ? "" : l.dtypes.front();
  return {static_cast<int>(l.kind), benchmark_rank(l.benchmark), l.benchmark, dtype_rank(dtype), dtype,
          l.threads.empty() ? 0 : l.threads.front(), -l.group_size};
}

void judge(TargetLine* l) {
  if (l->measured == 0) {
    l->verdict = l->invalid > 0 ? Verdict::kNotMet : Verdict::kNotMeasured;
  } else if (!target_threshold(l->kind).value) {
    l->verdict = Verdict::kInformational;
  } else if (l->invalid > 0 || l->measured - l->met > l->missed_doubted) {
    l->verdict = Verdict::kNotMet;  // a row misses it on evidence the run does not doubt
  } else {
    l->verdict = l->met_doubted + l->missed_doubted > 0 ? Verdict::kUnsettled : Verdict::kMet;
  }
}

template <typename T>
void add_unique(std::vector<T>* v, const T& x) {
  if (std::find(v->begin(), v->end(), x) == v->end()) v->push_back(x);
}

// Lines with nothing measured (and nothing invalid) say the same thing for every dtype and
// thread count: one line per target, benchmark and G keeps a large sweep's table short.
std::vector<TargetLine> merge_unmeasured(std::vector<TargetLine> lines) {
  std::vector<TargetLine> out;
  std::map<std::tuple<int, std::string, int, std::string>, std::size_t> merged;
  for (TargetLine& l : lines) {
    if (l.verdict != Verdict::kNotMeasured) {
      out.push_back(std::move(l));
      continue;
    }
    const auto key = std::make_tuple(static_cast<int>(l.kind), l.benchmark, l.group_size, l.missing);
    const auto it = merged.find(key);
    if (it == merged.end()) {
      merged.emplace(key, out.size());
      out.push_back(std::move(l));
      continue;
    }
    TargetLine& into = out[it->second];
    for (const auto& d : l.dtypes) add_unique(&into.dtypes, d);
    for (int t : l.threads) add_unique(&into.threads, t);
    into.unmeasured += l.unmeasured;
  }
  for (TargetLine& l : out) std::sort(l.threads.begin(), l.threads.end());
  return out;
}

}  // namespace

std::string llc_level(const MachineResults& m) { return m.l3_bytes ? "L3" : "L2"; }

bool beyond_streaming_group(const ResultRow& r) {
  const auto q = r.num(Col::q_heads), kv = r.num(Col::kv_heads);
  return q && kv && *kv > 0 && *q > kMaxStreamingGroupSize * *kv;
}

bool target_row_before(const TargetLine& a, const TargetLine& b) {
  LineKey ka = line_key(a), kb = line_key(b);
  std::get<5>(ka) = std::get<5>(kb) = 0;  // threads
  return ka < kb;
}

TargetThreshold target_threshold(TargetKind kind) {
  switch (kind) {
    case TargetKind::kDramStreaming: return {90.0, true};
    case TargetKind::kLlcResident: return {70.0, true};
    case TargetKind::kGqa: return {1.10, false};
    case TargetKind::kAppend: return {1.25, false};
    case TargetKind::kPrefill: return {85.0, true};
    case TargetKind::kPrefillStores: return {std::nullopt, true};
    case TargetKind::kPeers: return {std::nullopt, true};
  }
  return {};
}

std::string target_name(TargetKind kind) {
  switch (kind) {
    case TargetKind::kDramStreaming: return "DRAM streaming";
    case TargetKind::kLlcResident: return "LLC-resident";
    case TargetKind::kGqa: return "GQA";
    case TargetKind::kAppend: return "Append";
    case TargetKind::kPrefill: return "Prefill";
    case TargetKind::kPrefillStores: return "Prefill stores";
    case TargetKind::kPeers: return "Peers";
  }
  return "?";
}

bool target_is_percentage(TargetKind kind) {
  return kind == TargetKind::kDramStreaming || kind == TargetKind::kLlcResident || kind == TargetKind::kPrefill ||
         kind == TargetKind::kPrefillStores;
}

EfficiencyTargets evaluate_targets(const MachineResults& m) {
  const RunCeilings ceilings(m);
  EfficiencyTargets result;
  std::vector<Sample> samples;
  bandwidth_targets(m, ceilings, &samples, &result.rows_beyond_streaming_group);
  gqa_target(m, &samples);
  append_target(m, &samples);
  peer_target(m, &samples);

  std::map<LineKey, TargetLine> lines;
  for (const Sample& s : samples) {
    TargetLine l;
    l.kind = s.kind;
    l.benchmark = s.benchmark.empty() ? s.row->str(Col::benchmark) : s.benchmark;
    l.dtypes = {s.row->str(Col::dtype)};
    l.threads = {threads_of(*s.row)};
    l.group_size = s.group_size;
    TargetLine& line = lines.emplace(line_key(l), l).first->second;
    // A pair is invalid when either kernel failed its check (a peer row has no `valid`).
    const bool invalid = s.row->failed_validation() || (s.partner && s.partner->failed_validation());
    if (invalid) {
      ++line.invalid;
      continue;
    }
    if (!s.value) {
      ++line.unmeasured;
      line.missing = s.missing;
      continue;
    }
    const TargetThreshold th = target_threshold(s.kind);
    ++line.measured;
    if (!ceiling_moved_note(*s.row).empty()) ++line.ceiling_moved;
    const bool apart = s.partner && !pair_ceilings_note(*s.row, *s.partner).empty();
    const bool beaten = beats_own_ceiling(s);
    // A slowed core only understates a single row, but it can push a ratio either way.
    const bool slowed = !ceilings.core_slowed_note(*s.row).empty() ||
                        (s.partner && !ceilings.core_slowed_note(*s.partner).empty());
    line.ceilings_apart += apart;
    line.ceiling_beaten += beaten;
    line.core_slowed += slowed;
    // Part of a buffer on 4 KiB pages slows its row, as a slowed core does (a ratio either way).
    const bool short_of_huge_pages =
        !huge_page_note(*s.row).empty() || (s.partner && !huge_page_note(*s.partner).empty());
    line.short_of_huge_pages += short_of_huge_pages;
    if (th.met_by(*s.value)) {
      ++line.met;
      line.met_doubted += apart || beaten || ((slowed || short_of_huge_pages) && s.partner);
    } else {
      line.missed_doubted += slowed || short_of_huge_pages;
    }
    if (s.fastest) {
      ++line.with_fastest;
      if (th.met_by(*s.fastest)) ++line.met_fastest;
      if (!line.worst_fastest || *s.fastest < *line.worst_fastest) line.worst_fastest = s.fastest;
    }
    // Worst = furthest from the threshold's side; informational lines: the lowest ratio.
    const bool worse = !line.worst || (th.at_least ? *s.value < *line.worst : *s.value > *line.worst);
    const bool better = !line.best || (th.at_least ? *s.value > *line.best : *s.value < *line.best);
    if (worse) {
      line.worst = s.value;
      line.worst_row = s.row;
      line.worst_partner = s.partner;
    }
    if (better) line.best = s.value;
    if (s.peak_bound) {
      if (!th.met_by(*s.peak_bound)) ++line.beyond_peak;
      if (!line.peak_bound || (th.at_least ? *s.peak_bound < *line.peak_bound : *s.peak_bound > *line.peak_bound))
        line.peak_bound = s.peak_bound;
    }
    if (s.barrier_bound) {
      if (!th.met_by(*s.barrier_bound)) ++line.beyond_barrier;
      if (!line.barrier_bound || *s.barrier_bound < *line.barrier_bound) line.barrier_bound = s.barrier_bound;
    }
  }
  std::vector<TargetLine> out;
  for (auto& [key, line] : lines) {
    judge(&line);
    out.push_back(std::move(line));
  }
  result.lines = merge_unmeasured(std::move(out));
  // Within a target, what was measured first; the "not measured" lines after it.
  std::stable_sort(result.lines.begin(), result.lines.end(), [](const TargetLine& a, const TargetLine& b) {
    return std::make_pair(a.kind, a.verdict == Verdict::kNotMeasured) <
           std::make_pair(b.kind, b.verdict == Verdict::kNotMeasured);
  });
  return result;
}

}  // namespace kvb
