#include "harness/metadata.h"

#include <gtest/gtest.h>

#include "harness/csv_writer.h"
#include "harness/topology.h"
#include "kernels/attention.h"
#include "kernels/attention_amx.h"

namespace kvb {
namespace {

TEST(Metadata, EveryFieldIsFilled) {
  auto topo = Topology::discover();
  const RunMetadata m = collect_metadata(*topo, {topo->pus()[0]});
  for (const std::string* s : {&m.run_id, &m.host, &m.cpu_vendor, &m.cpu_model, &m.cpu_signature, &m.isa, &m.os_kernel,
                               &m.hypervisor, &m.thp_mode, &m.governor, &m.compiler, &m.cxx_flags, &m.git_commit,
                               &m.kvbench_version, &m.start_utc})
    EXPECT_FALSE(s->empty());
  EXPECT_EQ(m.run_id.rfind(m.host + "-", 0), 0u);
  EXPECT_EQ(m.run_id.back(), 'Z');
  EXPECT_EQ(m.pus_total, topo->pu_count());
  EXPECT_GE(m.numa_nodes, 1);
  EXPECT_GT(m.l1d_bytes, 0);
  EXPECT_GT(m.llc_bytes, 0);
  EXPECT_GT(m.mem_bytes, 0);
  EXPECT_EQ(m.start_utc.size(), 20u);  // 2026-11-21T23:40:05Z
#if defined(__x86_64__) || defined(__i386__)
  // x86 CPUs all have a family and model; a guest's model name alone may not tell them apart.
  EXPECT_EQ(m.cpu_signature.rfind("family ", 0), 0u) << m.cpu_signature;
  EXPECT_NE(m.cpu_signature.find(" model "), std::string::npos) << m.cpu_signature;
  EXPECT_NE(m.cpu_signature.find(" stepping "), std::string::npos) << m.cpu_signature;
#endif
  // Every metadata column is a schema column, in schema order, and none needs quoting.
  const auto cols = metadata_columns(m);
  const std::vector<std::string>& schema = csv_base_columns();
  ASSERT_LE(cols.size(), schema.size());
  for (std::size_t i = 0; i < cols.size(); ++i) {
    EXPECT_EQ(cols[i].first, schema[i]);
    EXPECT_EQ(cols[i].second.find_first_of(",\"\n"), std::string::npos) << cols[i].first;
  }
}

// The isa column says when int8 attention scores run on AMX, so A/B rows can be told apart.
TEST(Metadata, IsaNamesAmxWhenInt8AttentionUsesIt) {
  auto topo = Topology::discover();
  const bool before = detail::amx_int8_enabled();
  detail::set_amx_int8_enabled(false);
  EXPECT_EQ(collect_metadata(*topo, {topo->pus()[0]}).isa, simd_target_name());
  if (detail::set_amx_int8_enabled(true)) {  // only where AMX is supported
    EXPECT_EQ(collect_metadata(*topo, {topo->pus()[0]}).isa,
              std::string(simd_target_name()) + "+AMX-INT8");
  }
  detail::set_amx_int8_enabled(before);
}

}  // namespace
}  // namespace kvb
