#include "harness/metadata.h"

#include <gtest/gtest.h>

#include "harness/csv_writer.h"
#include "harness/topology.h"
#include "kernels/attention.h"
#include "kernels/attention_amx.h"
#include "kernels/cache_write.h"
#include "kernels/row_encode_avx512bf16.h"
#include "kernels/slot_prefetch.h"
#include "kernels/sw_prefetch.h"

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
  const bool bf16 = detail::avx512_bf16_enabled();
  const SwPrefetch prefetch = sw_prefetch();
  set_sw_prefetch(SwPrefetch::kT0);
  detail::set_amx_int8_enabled(false);
  detail::set_avx512_bf16_enabled(false);
  EXPECT_EQ(collect_metadata(*topo, {topo->pus()[0]}).isa, simd_target_name());
  if (detail::set_amx_int8_enabled(true)) {  // only where AMX is supported
    EXPECT_EQ(collect_metadata(*topo, {topo->pus()[0]}).isa,
              std::string(simd_target_name()) + "+AMX-INT8");
  }
  detail::set_amx_int8_enabled(before);
  detail::set_avx512_bf16_enabled(bf16);
  set_sw_prefetch(prefetch);
}

// ... and when bf16 rows are encoded with AVX512-BF16 (on by default where the CPU has it).
TEST(Metadata, IsaNamesAvx512Bf16WhenBf16RowsUseIt) {
  auto topo = Topology::discover();
  const bool amx = detail::amx_int8_enabled();
  const bool before = detail::avx512_bf16_enabled();
  const SwPrefetch prefetch = sw_prefetch();
  set_sw_prefetch(SwPrefetch::kT0);
  detail::set_amx_int8_enabled(false);
  detail::set_avx512_bf16_enabled(false);
  EXPECT_STREQ(bf16_encode_path(), "SIMD");
  EXPECT_EQ(collect_metadata(*topo, {topo->pus()[0]}).isa, simd_target_name());
  const bool on = detail::set_avx512_bf16_enabled(true);
  EXPECT_EQ(on, detail::avx512_bf16_supported());
  EXPECT_EQ(collect_metadata(*topo, {topo->pus()[0]}).isa,
            std::string(simd_target_name()) + (on ? "+AVX512-BF16" : ""));
  detail::set_avx512_bf16_enabled(before);
  detail::set_amx_int8_enabled(amx);
  set_sw_prefetch(prefetch);
}

// ... and when the attention kernels' software prefetch is not the default T0.
TEST(Metadata, IsaNamesTheSoftwarePrefetchWhenNotT0) {
  auto topo = Topology::discover();
  const bool amx = detail::amx_int8_enabled();
  const bool bf16 = detail::avx512_bf16_enabled();
  const SwPrefetch before = sw_prefetch();
  detail::set_amx_int8_enabled(false);
  detail::set_avx512_bf16_enabled(false);
  const std::string target = simd_target_name();
  set_sw_prefetch(SwPrefetch::kT2);
  EXPECT_EQ(collect_metadata(*topo, {topo->pus()[0]}).isa, target + "+PF-T2");
  set_sw_prefetch(SwPrefetch::kNone);
  EXPECT_EQ(collect_metadata(*topo, {topo->pus()[0]}).isa, target + "+PF-NONE");
  set_sw_prefetch(SwPrefetch::kT0);
  EXPECT_EQ(collect_metadata(*topo, {topo->pus()[0]}).isa, target);
  set_sw_prefetch(before);
  detail::set_amx_int8_enabled(amx);
  detail::set_avx512_bf16_enabled(bf16);
}

// ... and when the int8 append's slot request is not the default (w), after the window's hint.
TEST(Metadata, IsaNamesTheSlotRequestWhenNotWrite) {
  auto topo = Topology::discover();
  const bool amx = detail::amx_int8_enabled();
  const bool bf16 = detail::avx512_bf16_enabled();
  const SwPrefetch window = sw_prefetch();
  const SlotPrefetch before = slot_prefetch();
  detail::set_amx_int8_enabled(false);
  detail::set_avx512_bf16_enabled(false);
  set_sw_prefetch(SwPrefetch::kT0);
  const std::string target = simd_target_name();
  set_slot_prefetch(SlotPrefetch::kRead);
  EXPECT_EQ(collect_metadata(*topo, {topo->pus()[0]}).isa, target + "+SLOT-T0");
  set_slot_prefetch(SlotPrefetch::kNone);
  EXPECT_EQ(collect_metadata(*topo, {topo->pus()[0]}).isa, target + "+SLOT-NONE");
  set_sw_prefetch(SwPrefetch::kT2);
  EXPECT_EQ(collect_metadata(*topo, {topo->pus()[0]}).isa, target + "+PF-T2+SLOT-NONE");
  set_sw_prefetch(SwPrefetch::kT0);
  set_slot_prefetch(SlotPrefetch::kWrite);
  EXPECT_EQ(collect_metadata(*topo, {topo->pus()[0]}).isa, target);
  set_slot_prefetch(before);
  set_sw_prefetch(window);
  detail::set_amx_int8_enabled(amx);
  detail::set_avx512_bf16_enabled(bf16);
}

// The CPU family that picks --sw-prefetch auto's hint: x86 guests report a vendor and a number.
TEST(Metadata, CpuFamilyHasTheVendorAndNumberOnX86) {
  auto topo = Topology::discover();
  const CpuFamily f = cpu_family(*topo);
#if defined(__x86_64__) || defined(__i386__)
  EXPECT_TRUE(f.vendor == "AuthenticAMD" || f.vendor == "GenuineIntel") << f.vendor;
  EXPECT_GE(f.family, 6);
#else
  (void)f;
#endif
}

}  // namespace
}  // namespace kvb
