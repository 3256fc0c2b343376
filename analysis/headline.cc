#include "analysis/headline.h"

#include <map>
#include <tuple>

#include "analysis/display_order.h"
#include "analysis/efficiency_targets.h"
#include "analysis/series_selection.h"

namespace kvb {
namespace {

int dtype_rank(const std::string& dtype) { return rank_in(dtype, {"fp32", "fp16", "bf16", "int8", "int4"}); }

bool is_decode_step(const ResultRow& r) { return is_decode_kernel(r) && r.str(Col::benchmark) == "decode_step"; }

// Groups of more than kMaxStreamingGroupSize query heads per KV head are compute-bound (the GQA
// line judges them).
bool is_streaming_shape(const ResultRow& r) {
  const double q = r.num_or(Col::q_heads, 0), kv = r.num_or(Col::kv_heads, 0);
  return kv > 0 && q <= kMaxStreamingGroupSize * kv;
}

HeadlinePoint pick(const MachineResults& m, const std::string& dtype, int threads, const std::string& level) {
  HeadlinePoint p;
  if (threads <= 0) return p;
  // A streaming shape wins where one was run; where this dtype streamed anywhere, a cell with
  // none stays empty rather than show a compute-bound group's small share of the bandwidth (the
  // Emerald Rapids host's 16-thread LLC cell: an MQA row, G = 32, at 4-8% of the L3 ceiling,
  // where no G <= 2 row was LLC-resident at 16 threads).
  bool streamed = false;
  for (const ResultRow& r : m.summaries)
    streamed = streamed || (is_decode_step(r) && r.str(Col::dtype) == dtype && is_streaming_shape(r));
  for (const ResultRow& r : m.summaries) {
    if (!is_decode_step(r) || r.str(Col::dtype) != dtype || r.num_or(Col::threads, 0) != threads ||
        r.str(Col::ws_level) != level || !attained_gbps(r) || (streamed && !is_streaming_shape(r))) {
      continue;
    }
    // Where one configuration ran more than once (a reference set runs Qwen3-0.6B in several
    // steps; a rerun after a disturbed minute), the row does not depend on the order the files
    // were given: a row held against its own bracketed ceiling (--ceiling-bracket) over one
    // against its run's single ceiling, then the latest run's, as in best_peer_matches (run_id is
    // <host>-<UTC timestamp>).
    auto rank = [](const ResultRow& x) {
      return std::make_tuple(x.num_or(Col::working_set_bytes, 0), x.str(Col::cache_state) == "warm",
                             x.num(Col::ceiling_before_gbps).has_value(), x.str(Col::run_id));
    };
    if (!p.row || rank(r) > rank(*p.row)) p.row = &r;
  }
  if (!p.row) return p;
  p.gbps = attained_gbps(*p.row);
  // The ceiling of the row's own run (its ceiling_gbps column): machines drift between runs, so
  // a ratio against another run's ceiling would mix two measurements. Older rows without the
  // column fall back to the best ceiling of this machine.
  const std::optional<double> own = p.row->num(Col::ceiling_gbps);
  if (own && *own > 0) {
    p.pct_of_ceiling = 100 * *p.gbps / *own;
  } else if (const auto roof = m.read_roof(level, threads); roof && *roof > 0) {
    p.pct_of_ceiling = 100 * *p.gbps / *roof;
  }
  return p;
}

}  // namespace

Headline build_headline(const MachineResults& m) {
  Headline h;
  h.max_threads = max_decode_threads(m);
  std::map<std::pair<int, std::string>, HeadlineRow> rows;
  for (const ResultRow& r : m.summaries) {
    if (is_decode_step(r)) rows[{dtype_rank(r.str(Col::dtype)), r.str(Col::dtype)}].dtype = r.str(Col::dtype);
  }
  for (const PeerComparison& c : best_peer_matches(m)) {
    auto& row = rows[{dtype_rank(c.peer->str(Col::dtype)), c.peer->str(Col::dtype)}];
    row.dtype = c.peer->str(Col::dtype);
    row.peers.push_back(c);
  }
  for (auto& [key, row] : rows) {
    row.dram_one_thread = pick(m, row.dtype, 1, "DRAM");
    row.dram_max_threads = pick(m, row.dtype, h.max_threads, "DRAM");
    row.llc_max_threads = pick(m, row.dtype, h.max_threads, "L3");
    h.rows.push_back(std::move(row));
  }
  return h;
}

}  // namespace kvb
