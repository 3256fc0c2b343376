#include "analysis/peer_comparison.h"

#include <tuple>

namespace kvb {

std::optional<double> PeerComparison::valid_speed() const {
  if (!peer || peer->failed_validation()) return std::nullopt;
  return speed;
}

std::vector<PeerComparison> compare_with_peers(const MachineResults& m) {
  const std::vector<Col> shape = {Col::model,  Col::dtype,  Col::layers, Col::q_heads, Col::kv_heads, Col::head_dim,
                                  Col::context, Col::window, Col::batch, Col::threads, Col::cache_state};
  std::vector<PeerComparison> out;
  for (const ResultRow& peer : m.summaries) {
    if (!peer.is_peer()) continue;
    const std::string peer_shape = join_columns(peer, shape);
    bool matched = false;
    for (const ResultRow& ours : m.summaries) {
      // Peers implement decode attention: compare them with kvbench's decode kernels only.
      const bool decode = ours.str(Col::benchmark) == "decode_step" || ours.str(Col::benchmark) == "attention";
      if (!decode || join_columns(ours, shape) != peer_shape) continue;
      matched = true;
      PeerComparison c{&peer, &ours, attained_gbps(ours), attained_gbps(peer), std::nullopt, std::nullopt};
      const auto ns_peer = peer.num(Col::ns_per_step), ns_ours = ours.num(Col::ns_per_step);
      if (ns_peer && ns_ours && *ns_ours > 0) c.speed = *ns_peer / *ns_ours;
      if (c.kvbench_gbps && c.peer_gbps && *c.peer_gbps > 0) c.gbps_ratio = *c.kvbench_gbps / *c.peer_gbps;
      out.push_back(c);
    }
    if (!matched) out.push_back({&peer, nullptr, std::nullopt, attained_gbps(peer), std::nullopt, std::nullopt});
  }
  return out;
}

std::vector<PeerComparison> best_peer_matches(const MachineResults& m) {
  const auto rank = [](const PeerComparison& c) {
    return std::make_tuple(c.ours->str(Col::benchmark) == "attention", c.ours->str(Col::run_id));
  };
  std::vector<PeerComparison> out;
  for (const PeerComparison& c : compare_with_peers(m)) {
    // compare_with_peers lists each peer's entries together.
    if (!out.empty() && out.back().peer == c.peer) {
      if (c.ours && rank(c) > rank(out.back())) out.back() = c;
      continue;
    }
    out.push_back(c);
  }
  return out;
}

}  // namespace kvb
