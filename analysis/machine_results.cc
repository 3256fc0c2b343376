#include "analysis/machine_results.h"

#include <algorithm>
#include <cmath>
#include <vector>

#include "analysis/roofline.h"
#include "analysis/text_table.h"

namespace kvb {
namespace {

std::vector<Col> config_columns() { return {std::begin(kConfigColumns), std::end(kConfigColumns)}; }

std::vector<ResultRow> summarize(const std::vector<const ResultRow*>& rows,
                                 std::vector<std::optional<double>>* fastest_ns) {
  // (run_id, configuration) -> rows, in first-seen order.
  std::map<std::string, std::size_t> index;
  std::vector<std::vector<const ResultRow*>> groups;
  for (const ResultRow* r : rows) {
    // working_set_bytes separates ceiling sweeps of several buffer sizes within one cache level.
    const std::string key = r->str(Col::run_id) + "|" + join_columns(*r, config_columns()) + "|" +
                            r->str(Col::working_set_bytes);
    auto [it, inserted] = index.emplace(key, groups.size());
    if (inserted) groups.emplace_back();
    groups[it->second].push_back(r);
  }
  std::vector<ResultRow> out;
  for (const auto& g : groups) {
    std::vector<const ResultRow*> reps;
    for (const ResultRow* r : g) {
      if (r->is_repetition() && r->num(Col::ns_per_step)) reps.push_back(r);
    }
    std::sort(reps.begin(), reps.end(), [](const ResultRow* a, const ResultRow* b) {
      return *a->num(Col::ns_per_step) < *b->num(Col::ns_per_step);
    });
    const std::optional<double> fastest = reps.empty() ? std::nullopt : reps.front()->num(Col::ns_per_step);
    auto med = std::find_if(g.begin(), g.end(), [](const ResultRow* r) { return r->is_median(); });
    if (med != g.end()) {
      out.push_back(**med);
    } else if (!reps.empty()) {
      out.push_back(*reps[(reps.size() - 1) / 2]);
    } else {
      continue;
    }
    fastest_ns->push_back(fastest);
  }
  return out;
}

}  // namespace

std::optional<double> attained_gbps(const ResultRow& row) {
  const auto p = roofline_point(row.num(Col::bytes_read), row.num(Col::bytes_written), row.num(Col::flops),
                                row.num(Col::ns_per_step));
  if (p) return p->gbps;
  const auto bytes = row.num_or(Col::bytes_read, 0) + row.num_or(Col::bytes_written, 0);
  const auto ns = row.num(Col::ns_per_step);
  if (bytes > 0 && ns && *ns > 0) return bytes / *ns;
  return row.num(Col::gbps);
}

std::optional<double> MachineResults::fastest_gbps(std::size_t i) const {
  if (i >= summaries.size() || i >= fastest_ns.size() || !fastest_ns[i] || !(*fastest_ns[i] > 0)) return std::nullopt;
  const auto gbps = attained_gbps(summaries[i]);
  const auto ns = summaries[i].num(Col::ns_per_step);
  if (!gbps || !ns) return std::nullopt;
  return *gbps * *ns / *fastest_ns[i];
}

std::optional<double> MachineResults::read_roof(const std::string& ws_level, int threads) const {
  auto it = read_roof_gbps.find({ws_level, threads});
  if (it == read_roof_gbps.end()) return std::nullopt;
  return it->second;
}

std::optional<double> MachineResults::fma_peak(int threads) const {
  auto it = fma_peak_gflops.find(threads);
  if (it == fma_peak_gflops.end()) return std::nullopt;
  return it->second;
}

int MachineResults::roofline_threads() const {
  int best = 0;
  for (const auto& r : summaries) {
    if (!r.is_ceiling()) best = std::max(best, static_cast<int>(r.num_or(Col::threads, 0)));
  }
  if (best == 0) {  // ceilings only: use their largest thread count
    for (const auto& [key, gbps] : read_roof_gbps) best = std::max(best, key.second);
  }
  return best;
}

std::vector<const MachineResults::Llc*> MachineResults::llcs_by_runs() const {
  std::vector<const Llc*> order;
  for (const Llc& l : llcs) order.push_back(&l);
  std::stable_sort(order.begin(), order.end(),
                   [](const Llc* a, const Llc* b) { return a->run_ids.size() > b->run_ids.size(); });
  return order;
}

std::vector<MachineResults> group_by_machine(const std::vector<ResultRow>& rows) {
  std::vector<MachineResults> machines;
  std::map<std::string, std::vector<const ResultRow*>> members;
  std::vector<std::string> keys;  // per machine
  for (const ResultRow& r : rows) {
    // Host and model string do not tell CPUs apart on their own (two guests both reported "AMD
    // EPYC" on host "vm", a Zen 3 and a Zen 5): the cache sizes, in every row since the first
    // schema, do. The CPU signature (absent from older files) only labels the machines.
    const std::string key = r.str(Col::host) + "|" + r.str(Col::cpu_model) + "|" +
                            r.str(Col::l1d_bytes) + "|" + r.str(Col::l2_bytes) + "|" +
                            r.str(Col::l3_bytes);
    auto found = std::find(keys.begin(), keys.end(), key);
    MachineResults* m = nullptr;
    if (found == keys.end()) {
      keys.push_back(key);
      machines.emplace_back();
      m = &machines.back();
      m->id = "cpu" + std::to_string(machines.size() - 1);
      m->cpu_model = r.str(Col::cpu_model);
      m->host = r.str(Col::host);
      m->label = m->cpu_model + " (" + m->host + ")";
      m->isa = r.str(Col::isa);
      m->compiler = r.str(Col::compiler);
      m->kvbench_version = r.str(Col::kvbench_version);
      m->l1d_bytes = r.num(Col::l1d_bytes);
      m->l2_bytes = r.num(Col::l2_bytes);
      m->l3_bytes = r.num(Col::l3_bytes);
    } else {
      m = &machines[static_cast<std::size_t>(found - keys.begin())];
    }
    const auto bytes = r.num(Col::llc_bytes);
    const std::string source = r.str(Col::llc_source);
    auto llc = std::find_if(m->llcs.begin(), m->llcs.end(), [&](const MachineResults::Llc& l) {
      return l.bytes == bytes && l.source == source;
    });
    if (llc == m->llcs.end()) llc = m->llcs.insert(m->llcs.end(), {bytes, source, r.num(Col::llc_hwloc_bytes), {}});
    llc->run_ids.insert(r.str(Col::run_id));
    if (m->cpu_signature.empty()) m->cpu_signature = r.str(Col::cpu_signature);
    m->run_ids.insert(r.str(Col::run_id));
    members[key].push_back(&r);
  }
  // Machines that would share a label say what sets them apart: the signature (or ISA) and L2,
  // then as many of L3 and L1d as it takes (two guests of one Emerald Rapids design, 2 and 16
  // vCPUs, differ only in the L3 they are shown).
  std::vector<std::vector<std::string>> details;
  for (const MachineResults& m : machines) {
    std::string first = m.cpu_signature.empty() ? m.isa : m.cpu_signature;
    if (m.l2_bytes) first += ", L2 " + std::to_string(static_cast<long long>(*m.l2_bytes / 1024)) + " KiB";
    details.push_back({first, m.l3_bytes ? ", L3 " + format_bytes(*m.l3_bytes) : "",
                       m.l1d_bytes ? ", L1d " + format_bytes(*m.l1d_bytes) : ""});
  }
  for (std::size_t i = 0; i < machines.size(); ++i) {
    std::size_t used = 0;
    for (std::size_t o = 0; o < machines.size(); ++o) {
      if (o == i || machines[o].cpu_model != machines[i].cpu_model || machines[o].host != machines[i].host) continue;
      std::size_t same = 0;  // leading details the two share
      while (same < details[i].size() && details[i][same] == details[o][same]) ++same;
      used = std::max(used, std::min(same + 1, details[i].size()));
    }
    if (used == 0) continue;
    std::string detail;
    for (std::size_t k = 0; k < used; ++k) detail += details[i][k];
    machines[i].label += " [" + detail + "]";
  }
  for (MachineResults& m : machines) {
    const std::vector<const MachineResults::Llc*> by_runs = m.llcs_by_runs();
    if (by_runs.empty()) continue;
    m.llc_bytes = by_runs.front()->bytes;
    m.llc_source = by_runs.front()->source;
    m.llc_hwloc_bytes = by_runs.front()->hwloc_bytes;
  }
  for (std::size_t i = 0; i < machines.size(); ++i) {
    MachineResults& m = machines[i];
    m.summaries = summarize(members[keys[i]], &m.fastest_ns);
    for (const ResultRow& r : m.summaries) {
      const int threads = static_cast<int>(r.num_or(Col::threads, 0));
      if (r.str(Col::benchmark) == "ceiling_read") {
        if (auto g = attained_gbps(r)) {
          double& roof = m.read_roof_gbps[{r.str(Col::ws_level), threads}];
          roof = std::max(roof, *g);
        }
      } else if (r.is_fma_ceiling()) {
        const auto flops = r.num(Col::flops);
        const auto ns = r.num(Col::ns_per_step);
        const auto g = (flops && ns && *ns > 0) ? std::optional<double>(*flops / *ns) : r.num(Col::gflops);
        if (g && (!m.fma_peak_gflops.count(threads) || *g > m.fma_peak_gflops[threads])) {
          m.fma_peak_gflops[threads] = *g;
          m.fma_peak_slowest.erase(threads);
          if (const auto pct = r.num(Col::core_slowest_pct)) {
            const auto pu = r.num(Col::core_slowest_pu);
            m.fma_peak_slowest[threads] = {*pct, pu ? std::optional<int>(static_cast<int>(std::lround(*pu))) : std::nullopt};
          }
        }
      }
    }
  }
  return machines;
}

}  // namespace kvb
