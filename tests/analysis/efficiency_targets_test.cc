#include "analysis/efficiency_targets.h"

#include <gtest/gtest.h>

#include <optional>
#include <string>

#include "analysis/run_ceilings.h"
#include "tests/analysis/summary_rows.h"

namespace kvb {
namespace {

using testing::decode_row;
using testing::set;
using testing::summary_row;

constexpr double kLlc = 32.0 * 1024 * 1024;

MachineResults machine() {
  MachineResults m;
  m.id = "cpu0";
  m.l3_bytes = kLlc;
  m.llc_bytes = kLlc;
  return m;
}

// A ceiling summary row of `run` measuring `gbps` over a 1 GB buffer.
ResultRow ceiling(const std::string& benchmark, const std::string& level, int threads, double gbps,
                  const std::string& run = "run-a") {
  const double bytes = 1e9;
  return summary_row({{Col::run_id, run},
                      {Col::benchmark, benchmark},
                      {Col::threads, std::to_string(threads)},
                      {Col::ws_level, level},
                      {Col::aggregate, "none"},
                      {Col::ns_per_step, std::to_string(bytes / gbps)},
                      {Col::bytes_read, std::to_string(static_cast<long long>(bytes))},
                      {Col::bytes_written, "0"},
                      {Col::working_set_bytes, std::to_string(static_cast<long long>(bytes))},
                      {Col::valid, "1"}});
}

// A decode-type row whose time is `ns` (working set 1 MB) with `q_heads` query heads.
ResultRow timed_row(const std::string& benchmark, const std::string& dtype, int threads, int q_heads, int kv_heads,
                    double ns, const std::string& run = "run-a") {
  ResultRow r = decode_row(benchmark, dtype, threads, 16384, 1e6, 1e6 / ns, "DRAM", "warm", 28, kv_heads, run);
  set(r, Col::q_heads, std::to_string(q_heads));
  return r;
}

const TargetLine* find(const std::vector<TargetLine>& lines, TargetKind kind, const std::string& benchmark,
                       const std::string& dtype, int threads) {
  for (const TargetLine& l : lines) {
    if (l.kind == kind && l.benchmark == benchmark && !l.dtypes.empty() && l.dtypes.front() == dtype &&
        !l.threads.empty() && l.threads.front() == threads) {
      return &l;
    }
  }
  return nullptr;
}

TEST(EfficiencyTargets, DramStreamingUsesEachRowsOwnRunCeilingAndTheWorstRow) {
  MachineResults m = machine();
  // fp32 at 16 threads: 95% and 80% of the run's own DRAM ceiling (column), and a row at
  // 2x LLC that is DRAM-level but below the 4x LLC bar: not pooled.
  ResultRow a = decode_row("decode_step", "fp32", 16, 8192, 4 * kLlc, 95, "DRAM");
  set(a, Col::ceiling_gbps, "100");
  ResultRow b = decode_row("decode_step", "fp32", 16, 16384, 8 * kLlc, 80, "DRAM");
  set(b, Col::ceiling_gbps, "100");
  ResultRow small = decode_row("decode_step", "fp32", 16, 4096, 2 * kLlc, 10, "DRAM");
  set(small, Col::ceiling_gbps, "100");
  // bf16 in run-b without the column: the DRAM ceiling_read of run-b (200 GB/s) counts, not
  // run-a's (100 GB/s) nor another thread count's.
  ResultRow c = decode_row("decode_step", "bf16", 16, 16384, 4 * kLlc, 190, "DRAM", "warm", 28, 8, "run-b");
  m.summaries = {a, b, small, c,
                 ceiling("ceiling_read", "DRAM", 16, 100, "run-a"),
                 ceiling("ceiling_read", "DRAM", 16, 200, "run-b"),
                 ceiling("ceiling_read", "DRAM", 1, 400, "run-b")};
  const auto lines = evaluate_targets(m).lines;
  const TargetLine* fp32 = find(lines, TargetKind::kDramStreaming, "decode_step", "fp32", 16);
  ASSERT_NE(fp32, nullptr);
  EXPECT_EQ(fp32->measured, 2);
  EXPECT_EQ(fp32->met, 1);
  EXPECT_NEAR(*fp32->worst, 80, 1e-6);
  EXPECT_NEAR(*fp32->best, 95, 1e-6);
  EXPECT_EQ(fp32->worst_row->num(Col::context), 16384);
  EXPECT_EQ(fp32->verdict, Verdict::kNotMet);
  const TargetLine* bf16 = find(lines, TargetKind::kDramStreaming, "decode_step", "bf16", 16);
  ASSERT_NE(bf16, nullptr);
  EXPECT_NEAR(*bf16->worst, 95, 1e-6);
  EXPECT_EQ(bf16->verdict, Verdict::kMet);
}

TEST(EfficiencyTargets, DramLinesAlsoJudgeEachRowsFastestRepetitionButTheVerdictStaysOnMedians) {
  MachineResults m = machine();
  ResultRow a = decode_row("decode_step", "fp32", 16, 8192, 4 * kLlc, 80, "DRAM");  // median 80%
  set(a, Col::ceiling_gbps, "100");
  ResultRow b = decode_row("decode_step", "fp32", 16, 16384, 8 * kLlc, 85, "DRAM");  // no repetition rows
  set(b, Col::ceiling_gbps, "100");
  m.summaries = {a, b};
  m.fastest_ns = {*a.num(Col::ns_per_step) * 0.8, std::nullopt};  // fastest repetition: 100 GB/s
  const auto lines = evaluate_targets(m).lines;
  const TargetLine* fp32 = find(lines, TargetKind::kDramStreaming, "decode_step", "fp32", 16);
  ASSERT_NE(fp32, nullptr);
  EXPECT_NEAR(*fp32->worst, 80, 1e-6);
  EXPECT_EQ(fp32->verdict, Verdict::kNotMet);
  ASSERT_TRUE(fp32->worst_fastest.has_value());
  EXPECT_NEAR(*fp32->worst_fastest, 100, 1e-6);
  EXPECT_EQ(fp32->with_fastest, 1);
  EXPECT_EQ(fp32->met_fastest, 1);
}

TEST(EfficiencyTargets, FastestRepetitionComesFromTheConfigurationsRepetitionRows) {
  // Three repetitions (100, 80 and 125 ns) and a median aggregate (100 ns) of one configuration.
  std::vector<ResultRow> rows;
  for (const char* agg : {"none", "none", "none", "median"}) {
    ResultRow r = decode_row("decode_step", "fp32", 1, 8192, 1e9, 10, "DRAM");
    set(r, Col::host, "h");
    set(r, Col::cpu_model, "c");
    set(r, Col::aggregate, agg);
    rows.push_back(r);
  }
  set(rows[0], Col::ns_per_step, "100");
  set(rows[1], Col::ns_per_step, "80");
  set(rows[2], Col::ns_per_step, "125");
  set(rows[3], Col::ns_per_step, "100");
  const auto machines = group_by_machine(rows);
  ASSERT_EQ(machines.size(), 1u);
  ASSERT_EQ(machines[0].summaries.size(), 1u);
  EXPECT_EQ(machines[0].summaries[0].str(Col::aggregate), "median");
  const auto median = attained_gbps(machines[0].summaries[0]);
  const auto fastest = machines[0].fastest_gbps(0);
  ASSERT_TRUE(median && fastest);
  EXPECT_NEAR(*fastest / *median, 100.0 / 80.0, 1e-9);
}

TEST(EfficiencyTargets, LlcResidentPoolsDecodeStepAndAttentionAtTheLlcLevel) {
  MachineResults m = machine();
  ResultRow att = decode_row("attention", "fp32", 2, 1024, kLlc / 4, 300, "L3");
  set(att, Col::ceiling_gbps, "400");
  ResultRow dec = decode_row("decode_step", "fp32", 2, 1024, kLlc / 4, 200, "L3");
  set(dec, Col::ceiling_gbps, "400");
  ResultRow l2 = decode_row("decode_step", "fp32", 2, 16, 1e5, 10, "L2");  // not the LLC level
  set(l2, Col::ceiling_gbps, "800");
  m.summaries = {att, dec, l2};
  const auto lines = evaluate_targets(m).lines;
  const TargetLine* a = find(lines, TargetKind::kLlcResident, "attention", "fp32", 2);
  const TargetLine* d = find(lines, TargetKind::kLlcResident, "decode_step", "fp32", 2);
  ASSERT_NE(a, nullptr);
  ASSERT_NE(d, nullptr);
  EXPECT_NEAR(*a->worst, 75, 1e-6);
  EXPECT_EQ(a->verdict, Verdict::kMet);
  EXPECT_NEAR(*d->worst, 50, 1e-6);
  EXPECT_EQ(d->verdict, Verdict::kNotMet);
  EXPECT_EQ(d->measured, 1);  // the L2 row is not pooled
  EXPECT_EQ(lines.size(), 2u);
}

TEST(EfficiencyTargets, GqaComparesG8WithG1OrTheLargestGBelow) {
  MachineResults m = machine();
  ResultRow gqa_base_at_8192 = timed_row("decode_step", "int8", 1, 8, 8, 500, "run-a");
  set(gqa_base_at_8192, Col::context, "8192");
  m.summaries = {
      // fp32: G = 1, 2, 8 (and 16, above the target's range): G = 8 is judged, 1.05 met.
      timed_row("attention", "fp32", 2, 8, 8, 1000), timed_row("attention", "fp32", 2, 16, 8, 1010),
      timed_row("attention", "fp32", 2, 64, 8, 1050), timed_row("attention", "fp32", 2, 128, 8, 5000),
      // bf16: no G = 8; G = 4 is judged: 1.2, not met.
      timed_row("attention", "bf16", 2, 8, 8, 1000), timed_row("attention", "bf16", 2, 32, 8, 1200),
      // int8: G = 2 at context 16384 in run-a, whose G = 1 row is at another context; run-b's G = 1
      // row at 16384 is another run: never paired. run-a attempted GQA, so "not measured".
      timed_row("decode_step", "int8", 1, 16, 8, 1000, "run-a"), gqa_base_at_8192,
      timed_row("decode_step", "int8", 1, 8, 8, 1000, "run-b"),
      // fp16: G = 2 in run-c, which ran no G = 1 row at all: no GQA line.
      timed_row("decode_step", "fp16", 1, 16, 8, 1000, "run-c")};
  const auto lines = evaluate_targets(m).lines;
  const TargetLine* fp32 = find(lines, TargetKind::kGqa, "attention", "fp32", 2);
  ASSERT_NE(fp32, nullptr);
  EXPECT_EQ(fp32->group_size, 8);
  EXPECT_NEAR(*fp32->worst, 1.05, 1e-9);
  EXPECT_EQ(fp32->worst_partner->num(Col::q_heads), 8);
  EXPECT_EQ(fp32->verdict, Verdict::kMet);
  const TargetLine* bf16 = find(lines, TargetKind::kGqa, "attention", "bf16", 2);
  ASSERT_NE(bf16, nullptr);
  EXPECT_EQ(bf16->group_size, 4);
  EXPECT_NEAR(*bf16->worst, 1.2, 1e-9);
  EXPECT_EQ(bf16->verdict, Verdict::kNotMet);
  const TargetLine* int8 = find(lines, TargetKind::kGqa, "decode_step", "int8", 1);
  ASSERT_NE(int8, nullptr);
  EXPECT_EQ(int8->group_size, 2);
  EXPECT_EQ(int8->verdict, Verdict::kNotMeasured);
  EXPECT_EQ(int8->unmeasured, 1);
  EXPECT_FALSE(int8->worst.has_value());
  EXPECT_EQ(find(lines, TargetKind::kGqa, "decode_step", "fp16", 1), nullptr);
}

// A bracketed pair whose rows ran against ceilings > 10% apart (the machine's bandwidth moved
// between them) is counted, and the worst pair names both ceilings; within 10% it is not.
TEST(EfficiencyTargets, PairsWhoseRowsRanAgainstCeilingsFarApartAreCounted) {
  MachineResults m = machine();
  const auto bracketed = [](ResultRow r, const std::string& before, const std::string& after) {
    set(r, Col::ceiling_before_gbps, before);
    set(r, Col::ceiling_after_gbps, after);
    set(r, Col::ceiling_gbps, std::to_string(std::max(std::stod(before), std::stod(after))));
    return r;
  };
  m.summaries = {bracketed(timed_row("attention", "fp32", 2, 8, 8, 1000), "51", "52"),
                 bracketed(timed_row("attention", "fp32", 2, 64, 8, 700), "80", "78"),
                 bracketed(timed_row("attention", "fp16", 2, 8, 8, 1000), "50", "52"),
                 bracketed(timed_row("attention", "fp16", 2, 64, 8, 1500), "54", "55"),
                 // unbracketed rows are never compared, however far apart
                 timed_row("attention", "int8", 2, 8, 8, 1000), timed_row("attention", "int8", 2, 64, 8, 1500)};
  const auto lines = evaluate_targets(m).lines;
  const TargetLine* fp32 = find(lines, TargetKind::kGqa, "attention", "fp32", 2);
  ASSERT_NE(fp32, nullptr);
  EXPECT_EQ(fp32->ceilings_apart, 1);
  EXPECT_EQ(pair_ceilings_note(*fp32->worst_row, *fp32->worst_partner), "ceiling 80 GB/s, its partner's 52");
  const TargetLine* fp16 = find(lines, TargetKind::kGqa, "attention", "fp16", 2);
  ASSERT_NE(fp16, nullptr);
  EXPECT_EQ(fp16->ceilings_apart, 0);  // 55 vs 52: 5.8%
  EXPECT_EQ(pair_ceilings_note(*fp16->worst_row, *fp16->worst_partner), "");
  const TargetLine* int8 = find(lines, TargetKind::kGqa, "attention", "int8", 2);
  ASSERT_NE(int8, nullptr);
  EXPECT_EQ(int8->ceilings_apart, 0);
}

// Rows whose flops at the machine's FP32 FMA peak (cost model flops / ceiling_fma GFLOP/s) would
// still miss the threshold are counted as out of the arithmetic's reach, with the least
// favourable bound; rows the peak leaves room for, or without flops or a peak, are not.
TEST(EfficiencyTargets, RowsTheFmaPeakKeepsFromTheThresholdAreCounted) {
  MachineResults m = machine();
  m.fma_peak_gflops[1] = 100;  // 100 flop per ns
  const auto with_flops = [](ResultRow r, double flops) {
    set(r, Col::flops, std::to_string(flops));
    return r;
  };
  // LLC: 1 MB in 10000 ns is 100 GB/s, 50% of a 200 GB/s ceiling; 400000 flops take 4000 ns at the
  // peak, so at best 125% (room); 1600000 flops take 16000 ns: at best 31.25%, out of reach.
  ResultRow llc_room = with_flops(decode_row("decode_step", "fp16", 1, 1024, 1e6, 100, "L3"), 4e5);
  set(llc_room, Col::ceiling_gbps, "200");
  ResultRow llc_bound = with_flops(decode_row("decode_step", "int8", 1, 1024, 1e6, 100, "L3"), 1.6e6);
  set(llc_bound, Col::ceiling_gbps, "200");
  m.summaries = {llc_room, llc_bound,
                 // GQA int8: G = 8 takes 3000 ns against 1000 at G = 1; its 200000 flops take 2000 ns
                 // at the peak: 2.0x at best, out of reach. fp32: 50000 flops, 0.5x: room.
                 timed_row("attention", "int8", 1, 8, 8, 1000),
                 with_flops(timed_row("attention", "int8", 1, 64, 8, 3000), 2e5),
                 timed_row("attention", "fp32", 1, 8, 8, 1000),
                 with_flops(timed_row("attention", "fp32", 1, 64, 8, 1500), 5e4),
                 // bf16 at two threads: no peak measured for them, so no bound.
                 timed_row("attention", "bf16", 2, 8, 8, 1000),
                 with_flops(timed_row("attention", "bf16", 2, 64, 8, 3000), 2e5)};
  const auto lines = evaluate_targets(m).lines;
  struct Expected {
    TargetKind kind;
    const char* benchmark;
    const char* dtype;
    int threads;
    int beyond_peak;
    std::optional<double> peak_bound;
  };
  for (const Expected& e : {Expected{TargetKind::kLlcResident, "decode_step", "fp16", 1, 0, 125.0},
                            Expected{TargetKind::kLlcResident, "decode_step", "int8", 1, 1, 31.25},
                            Expected{TargetKind::kGqa, "attention", "int8", 1, 1, 2.0},
                            Expected{TargetKind::kGqa, "attention", "fp32", 1, 0, 0.5},
                            Expected{TargetKind::kGqa, "attention", "bf16", 2, 0, std::nullopt}}) {
    SCOPED_TRACE(std::string(e.benchmark) + " " + e.dtype + " " + std::to_string(e.threads) + "T");
    const TargetLine* l = find(lines, e.kind, e.benchmark, e.dtype, e.threads);
    ASSERT_NE(l, nullptr);
    EXPECT_EQ(l->beyond_peak, e.beyond_peak);
    ASSERT_EQ(l->peak_bound.has_value(), e.peak_bound.has_value());
    if (e.peak_bound) {
      EXPECT_NEAR(*l->peak_bound, *e.peak_bound, 1e-9);
    }
  }
  // 50% < 70% with room at the peak: not met, and the kernel's to fix.
  EXPECT_EQ(find(lines, TargetKind::kLlcResident, "decode_step", "fp16", 1)->verdict, Verdict::kNotMet);
}

// A DRAM or LLC row is also held to what its bytes at its ceiling plus one crossing of its run's
// ceiling_barrier per layer allow (28 layers here): rows that bound keeps from the threshold are
// counted. The crossing is looked up by run and thread count; a run without one gives no bound.
TEST(EfficiencyTargets, RowsOneBarrierPerLayerKeepsFromTheThresholdAreCounted) {
  MachineResults m = machine();
  const auto crossing = testing::barrier_crossing_row;
  // LLC, 2 threads: 1 MB at 50 GB/s (20000 ns), 50% of a 100 GB/s ceiling: 10000 ns at the
  // ceiling; 28 crossings of 500 ns add 14000: at best 41.67%, out of reach of 70%.
  ResultRow llc2 = decode_row("decode_step", "fp32", 2, 1024, 1e6, 50, "L3");
  set(llc2, Col::ceiling_gbps, "100");
  // LLC, 1 thread: 28 crossings of 5 ns beside 10000 ns: at best 98.62%, room.
  ResultRow llc1 = decode_row("decode_step", "fp32", 1, 1024, 1e6, 50, "L3");
  set(llc1, Col::ceiling_gbps, "100");
  // DRAM, 2 threads, 80% of 100 GB/s: 1e9 bytes take 1e7 ns at the ceiling, 14000 ns of crossings
  // beside them: at best 99.86%.
  ResultRow dram = decode_row("decode_step", "fp32", 2, 16384, 4 * kLlc, 80, "DRAM");
  set(dram, Col::ceiling_gbps, "100");
  // bf16 in run-b, which measured no crossing: no bound.
  ResultRow other = decode_row("decode_step", "bf16", 2, 1024, 1e6, 50, "L3", "warm", 28, 8, "run-b");
  set(other, Col::ceiling_gbps, "100");
  m.summaries = {llc2, llc1, dram, other, crossing(2, 500, "run-a"), crossing(2, 900, "run-a"),
                 crossing(1, 5, "run-a")};
  const auto lines = evaluate_targets(m).lines;
  const TargetLine* two = find(lines, TargetKind::kLlcResident, "decode_step", "fp32", 2);
  ASSERT_NE(two, nullptr);
  EXPECT_EQ(two->beyond_barrier, 1);
  ASSERT_TRUE(two->barrier_bound.has_value());
  EXPECT_NEAR(*two->barrier_bound, 100.0 * 10000 / 24000, 1e-9);  // the least of the run's crossings
  const TargetLine* one = find(lines, TargetKind::kLlcResident, "decode_step", "fp32", 1);
  ASSERT_NE(one, nullptr);
  EXPECT_EQ(one->beyond_barrier, 0);
  EXPECT_NEAR(*one->barrier_bound, 100.0 * 10000 / 10140, 1e-9);
  const TargetLine* d = find(lines, TargetKind::kDramStreaming, "decode_step", "fp32", 2);
  ASSERT_NE(d, nullptr);
  EXPECT_EQ(d->beyond_barrier, 0);
  ASSERT_TRUE(d->barrier_bound.has_value());
  const double dram_ceiling_ns = *dram.num(Col::ns_per_step) * 0.8;
  EXPECT_NEAR(*d->barrier_bound, 100 * dram_ceiling_ns / (dram_ceiling_ns + 28 * 500), 1e-9);
  const TargetLine* b = find(lines, TargetKind::kLlcResident, "decode_step", "bf16", 2);
  ASSERT_NE(b, nullptr);
  EXPECT_FALSE(b->barrier_bound.has_value());
  EXPECT_EQ(b->beyond_barrier, 0);
}

TEST(EfficiencyTargets, BandwidthTargetsLeaveOutGroupsLargerThanTwo) {
  MachineResults m = machine();
  ResultRow g2 = decode_row("decode_step", "fp32", 2, 2048, kLlc / 4, 80, "L3");
  set(g2, Col::q_heads, "16");  // 16 q / 8 kv: G = 2, pooled
  set(g2, Col::ceiling_gbps, "100");
  ResultRow g4 = decode_row("decode_step", "fp32", 2, 2048, kLlc / 4, 30, "L3");
  set(g4, Col::q_heads, "32");  // 32 q / 8 kv: G = 4, left out and counted
  set(g4, Col::ceiling_gbps, "100");
  ResultRow g32 = decode_row("decode_step", "fp32", 2, 2048, kLlc / 32, 10, "L3", "warm", 28, 1);
  set(g32, Col::q_heads, "32");  // 32 q / 1 kv: G = 32, left out and counted
  set(g32, Col::ceiling_gbps, "100");
  m.summaries = {g2, g4, g32};
  const EfficiencyTargets t = evaluate_targets(m);
  ASSERT_EQ(t.lines.size(), 1u);
  EXPECT_EQ(t.lines[0].measured, 1);
  EXPECT_NEAR(*t.lines[0].worst, 80, 1e-6);
  EXPECT_EQ(t.lines[0].verdict, Verdict::kMet);
  EXPECT_EQ(t.rows_beyond_streaming_group, 2);
}

TEST(EfficiencyTargets, AppendIsTimedAgainstTheMatchingMemcpyRow) {
  MachineResults m = machine();
  ResultRow fast = timed_row("append", "fp32", 1, 16, 8, 110);
  ResultRow fast_base = timed_row("append_memcpy", "fp32", 1, 16, 8, 100);
  ResultRow slow = timed_row("append", "int8", 1, 16, 8, 300);
  ResultRow slow_base = timed_row("append_memcpy", "int8", 1, 16, 8, 100);
  ResultRow other_context = timed_row("append_memcpy", "int8", 1, 16, 8, 10);
  set(other_context, Col::context, "2048");  // another configuration: not the baseline
  ResultRow alone = timed_row("append", "bf16", 1, 16, 8, 100);
  m.summaries = {fast, fast_base, slow, other_context, slow_base, alone};
  const auto lines = evaluate_targets(m).lines;
  const TargetLine* fp32 = find(lines, TargetKind::kAppend, "append", "fp32", 1);
  ASSERT_NE(fp32, nullptr);
  EXPECT_NEAR(*fp32->worst, 1.10, 1e-9);
  EXPECT_EQ(fp32->verdict, Verdict::kMet);
  const TargetLine* int8 = find(lines, TargetKind::kAppend, "append", "int8", 1);
  ASSERT_NE(int8, nullptr);
  EXPECT_NEAR(*int8->worst, 3.0, 1e-9);
  EXPECT_EQ(int8->verdict, Verdict::kNotMet);
  const TargetLine* bf16 = find(lines, TargetKind::kAppend, "append", "bf16", 1);
  ASSERT_NE(bf16, nullptr);
  EXPECT_EQ(bf16->verdict, Verdict::kNotMeasured);
  EXPECT_NE(bf16->missing.find("append_memcpy"), std::string::npos);
}

// Fresh rows (a new position every step) pair with fresh memcpy rows and make their own lines,
// split by whether the cache exceeds the LLC; append_streaming rows (held to the same memcpy) too.
TEST(EfficiencyTargets, FreshAndStreamingAppendRowsMakeTheirOwnLines) {
  MachineResults m = machine();
  ResultRow warm = timed_row("append", "fp32", 1, 16, 8, 150);
  ResultRow warm_base = timed_row("append_memcpy", "fp32", 1, 16, 8, 100);
  ResultRow fresh = timed_row("append", "fp32", 1, 16, 8, 220);
  ResultRow fresh_base = timed_row("append_memcpy", "fp32", 1, 16, 8, 200);
  ResultRow streaming = timed_row("append_streaming", "fp32", 1, 16, 8, 300);
  ResultRow fresh_streaming = timed_row("append_streaming", "fp32", 1, 16, 8, 100);
  set(fresh, Col::cache_state, "fresh");
  set(fresh_base, Col::cache_state, "fresh");
  set(fresh_streaming, Col::cache_state, "fresh");
  // The same rows over a cache that fits in L2: the fresh slot is still cached.
  ResultRow cached_base = fresh_base, cached_streaming = fresh_streaming;
  set(cached_base, Col::ws_level, "L2");
  set(cached_streaming, Col::ws_level, "L2");
  set(cached_base, Col::context, "64");
  set(cached_streaming, Col::context, "64");
  set(cached_streaming, Col::ns_per_step, "500");
  m.summaries = {fresh_base, warm, fresh, warm_base, streaming, fresh_streaming, cached_streaming, cached_base};
  const auto lines = evaluate_targets(m).lines;
  const TargetLine* s = find(lines, TargetKind::kAppend, "append_streaming", "fp32", 1);
  const TargetLine* fs = find(lines, TargetKind::kAppend, "append_streaming (fresh, DRAM)", "fp32", 1);
  const TargetLine* cs = find(lines, TargetKind::kAppend, "append_streaming (fresh, in cache)", "fp32", 1);
  ASSERT_NE(cs, nullptr);
  EXPECT_EQ(cs->measured, 1);
  EXPECT_NEAR(*cs->worst, 2.5, 1e-9);
  EXPECT_EQ(cs->verdict, Verdict::kNotMet);
  EXPECT_EQ(find(lines, TargetKind::kAppend, "append (fresh, in cache)", "fp32", 1), nullptr);
  ASSERT_NE(s, nullptr);
  ASSERT_NE(fs, nullptr);
  EXPECT_NEAR(*s->worst, 3.0, 1e-9);
  EXPECT_EQ(s->verdict, Verdict::kNotMet);
  EXPECT_EQ(fs->measured, 1);
  EXPECT_NEAR(*fs->worst, 0.5, 1e-9);
  EXPECT_EQ(fs->verdict, Verdict::kMet);
  const TargetLine* w = find(lines, TargetKind::kAppend, "append", "fp32", 1);
  const TargetLine* f = find(lines, TargetKind::kAppend, "append (fresh, DRAM)", "fp32", 1);
  ASSERT_NE(w, nullptr);
  ASSERT_NE(f, nullptr);
  EXPECT_EQ(w->measured, 1);
  EXPECT_NEAR(*w->worst, 1.5, 1e-9);
  EXPECT_EQ(w->verdict, Verdict::kNotMet);
  EXPECT_EQ(f->measured, 1);
  EXPECT_NEAR(*f->worst, 1.1, 1e-9);
  EXPECT_EQ(f->verdict, Verdict::kMet);
}

TEST(EfficiencyTargets, PrefillOfADramSizedCacheIsAPercentOfTheRunsDramCopyCeiling) {
  MachineResults m = machine();
  ResultRow l3 = decode_row("prefill_copy", "fp32", 2, 4096, 1e7, 45, "L3");  // few tokens: left out
  ResultRow dram = decode_row("prefill_copy", "fp32", 2, 65536, 4 * kLlc, 18, "DRAM");
  ResultRow slow = decode_row("prefill_copy", "fp16", 2, 65536, 5 * kLlc, 10, "DRAM");
  ResultRow no_ceiling = decode_row("prefill_copy", "bf16", 1, 65536, 4 * kLlc, 18, "DRAM");
  m.summaries = {l3, dram, slow, no_ceiling,
                 ceiling("ceiling_copy", "L3", 2, 50), ceiling("ceiling_copy", "DRAM", 2, 20),
                 ceiling("ceiling_read", "DRAM", 1, 100)};  // a read ceiling is not a copy ceiling
  const auto lines = evaluate_targets(m).lines;
  const TargetLine* fp32 = find(lines, TargetKind::kPrefill, "prefill_copy", "fp32", 2);
  ASSERT_NE(fp32, nullptr);
  EXPECT_EQ(fp32->measured, 1);
  EXPECT_NEAR(*fp32->worst, 90, 1e-6);
  EXPECT_EQ(fp32->verdict, Verdict::kMet);
  const TargetLine* fp16 = find(lines, TargetKind::kPrefill, "prefill_copy", "fp16", 2);
  ASSERT_NE(fp16, nullptr);
  EXPECT_NEAR(*fp16->worst, 50, 1e-6);
  EXPECT_EQ(fp16->verdict, Verdict::kNotMet);
  const TargetLine* bf16 = find(lines, TargetKind::kPrefill, "prefill_copy", "bf16", 1);
  ASSERT_NE(bf16, nullptr);
  EXPECT_EQ(bf16->verdict, Verdict::kNotMeasured);
}

// --ceiling-bracket rows carry their own ceiling (the larger end of the bracket) in
// ceiling_gbps: DRAM and prefill use it over the start-of-run rows, and a bracket whose ends
// differ by more than 10% is counted and named.
TEST(EfficiencyTargets, BracketedRowsUseTheirOwnCeilingAndFlagAMovedOne) {
  MachineResults m = machine();
  ResultRow steady = decode_row("decode_step", "fp32", 2, 16384, 8 * kLlc, 90, "DRAM");
  set(steady, Col::ceiling_gbps, "100");
  set(steady, Col::ceiling_before_gbps, "100");
  set(steady, Col::ceiling_after_gbps, "95");  // 5.3%: not flagged
  ResultRow moved = decode_row("decode_step", "fp32", 2, 32768, 16 * kLlc, 45, "DRAM");
  set(moved, Col::ceiling_gbps, "60");
  set(moved, Col::ceiling_before_gbps, "60");
  set(moved, Col::ceiling_after_gbps, "45");  // the ceiling fell 25% while it ran
  ResultRow prefill = decode_row("prefill_copy", "fp32", 2, 65536, 4 * kLlc, 18, "DRAM");
  set(prefill, Col::ceiling_gbps, "19");
  set(prefill, Col::ceiling_before_gbps, "18.5");
  set(prefill, Col::ceiling_after_gbps, "19");
  // Start-of-run ceilings that would give other percentages.
  m.summaries = {steady, moved, prefill, ceiling("ceiling_read", "DRAM", 2, 200),
                 ceiling("ceiling_copy", "DRAM", 2, 40)};
  const auto lines = evaluate_targets(m).lines;
  const TargetLine* dram = find(lines, TargetKind::kDramStreaming, "decode_step", "fp32", 2);
  ASSERT_NE(dram, nullptr);
  EXPECT_EQ(dram->measured, 2);
  EXPECT_NEAR(*dram->worst, 75, 1e-9);  // 45 of max(60, 45)
  EXPECT_NEAR(*dram->best, 90, 1e-9);
  EXPECT_EQ(dram->ceiling_moved, 1);
  EXPECT_EQ(ceiling_moved_note(*dram->worst_row), "ceiling moved -25%");
  EXPECT_EQ(ceiling_moved_note(steady), "");
  EXPECT_NEAR(*ceiling_drift(steady), -0.05, 1e-12);
  const TargetLine* pre = find(lines, TargetKind::kPrefill, "prefill_copy", "fp32", 2);
  ASSERT_NE(pre, nullptr);
  EXPECT_NEAR(*pre->worst, 100.0 * 18 / 19, 1e-9);
  EXPECT_EQ(pre->ceiling_moved, 0);
  // Without a bracket there is no drift, and an unbracketed prefill row keeps the run's rows.
  ResultRow plain = decode_row("decode_step", "fp32", 2, 16384, 8 * kLlc, 90, "DRAM");
  EXPECT_FALSE(ceiling_drift(plain));
  EXPECT_EQ(ceiling_moved_note(plain), "");
}

TEST(EfficiencyTargets, PrefillWrittenBytesAreAlsoAPercentOfTheRunsStreamingStoreCeiling) {
  MachineResults m = machine();
  ResultRow dram = decode_row("prefill_copy", "fp32", 2, 65536, 4 * kLlc, 18, "DRAM");
  set(dram, Col::bytes_written, "3000000");
  set(dram, Col::ns_per_step, "1000000");  // 3 GB/s written
  ResultRow no_ceiling = decode_row("prefill_copy", "bf16", 1, 65536, 4 * kLlc, 18, "DRAM");
  m.summaries = {dram, no_ceiling, ceiling("ceiling_copy", "DRAM", 2, 20), ceiling("ceiling_write_nt", "DRAM", 2, 12),
                 ceiling("ceiling_write", "DRAM", 1, 10)};  // an ordinary-store ceiling does not count
  const auto lines = evaluate_targets(m).lines;
  const TargetLine* fp32 = find(lines, TargetKind::kPrefillStores, "prefill_copy", "fp32", 2);
  ASSERT_NE(fp32, nullptr);
  EXPECT_NEAR(*fp32->worst, 25, 1e-6);
  EXPECT_EQ(fp32->verdict, Verdict::kInformational);
  const TargetLine* bf16 = find(lines, TargetKind::kPrefillStores, "prefill_copy", "bf16", 1);
  ASSERT_NE(bf16, nullptr);
  EXPECT_EQ(bf16->verdict, Verdict::kNotMeasured);
}

TEST(EfficiencyTargets, PeersAreInformationalGbpsRatios) {
  MachineResults m = machine();
  ResultRow ours = decode_row("attention", "fp32", 2, 4096, 1e9, 30, "DRAM");
  ResultRow peer = decode_row("peer_torch", "fp32", 2, 4096, 1e9, 20, "DRAM");
  ResultRow lonely_peer = decode_row("peer_torch", "fp32", 2, 8192, 2e9, 20, "DRAM");
  m.summaries = {ours, peer, lonely_peer};
  const auto lines = evaluate_targets(m).lines;
  const TargetLine* p = find(lines, TargetKind::kPeers, "peer_torch", "fp32", 2);
  ASSERT_NE(p, nullptr);
  EXPECT_NEAR(*p->worst, 1.5, 1e-9);
  EXPECT_EQ(p->verdict, Verdict::kInformational);
  EXPECT_EQ(p->unmeasured, 1);  // the peer at 8192 has no kvbench row
}

TEST(EfficiencyTargets, InvalidRowsMakeTheirLineNotMet) {
  MachineResults m = machine();
  ResultRow good = decode_row("decode_step", "fp32", 1, 16384, 8 * kLlc, 99, "DRAM");
  set(good, Col::ceiling_gbps, "100");
  ResultRow bad = decode_row("decode_step", "fp32", 1, 32768, 16 * kLlc, 99, "DRAM");
  set(bad, Col::ceiling_gbps, "100");
  set(bad, Col::valid, "0");
  m.summaries = {good, bad};
  const auto lines = evaluate_targets(m).lines;
  ASSERT_EQ(lines.size(), 1u);
  EXPECT_EQ(lines[0].measured, 1);
  EXPECT_EQ(lines[0].met, 1);
  EXPECT_EQ(lines[0].invalid, 1);
  EXPECT_EQ(lines[0].verdict, Verdict::kNotMet);
}

// Rows the run itself doubts (above their own read ceiling by more than the drift flag; pairs run
// against ceilings that far apart) can keep a line from being met, never make it met. A prefill
// above its copy ceiling is not doubted: the copy ceiling reads for ownership, a prefill streams.
TEST(EfficiencyTargets, LinesMetOnlyWithRowsTheRunDoubtsAreUnsettled) {
  MachineResults m = machine();
  const auto dram = [](const std::string& dtype, int context, double gbps, const std::string& ceiling) {
    ResultRow r = decode_row("decode_step", dtype, 1, context, 8 * kLlc, gbps, "DRAM");
    set(r, Col::ceiling_gbps, ceiling);
    return r;
  };
  const auto bracketed = [](ResultRow r, const std::string& ceiling) {
    set(r, Col::ceiling_before_gbps, ceiling);
    set(r, Col::ceiling_after_gbps, ceiling);
    set(r, Col::ceiling_gbps, ceiling);
    return r;
  };
  const ResultRow prefill = bracketed(decode_row("prefill_copy", "fp32", 1, 65536, 4 * kLlc, 30, "DRAM"), "20");
  m.summaries = {dram("fp32", 16384, 95, "100"), dram("fp32", 32768, 38, "30"),   // 95% and 127%
                 dram("fp16", 16384, 38, "30"), dram("fp16", 32768, 80, "100"),  // 127% and 80%
                 dram("bf16", 16384, 33, "30"),                                   // 110%: not above
                 bracketed(timed_row("attention", "fp32", 2, 8, 8, 1000), "25"),
                 bracketed(timed_row("attention", "fp32", 2, 64, 8, 730), "55"),  // 0.73x, ceilings 2.2x apart
                 bracketed(timed_row("attention", "fp16", 2, 8, 8, 1000), "25"),
                 bracketed(timed_row("attention", "fp16", 2, 64, 8, 2000), "55"),  // 2.0x, same
                 prefill};
  const auto lines = evaluate_targets(m).lines;
  struct Expected {
    TargetKind kind;
    const char* benchmark;
    const char* dtype;
    int threads, ceiling_beaten, ceilings_apart;
    Verdict verdict;
  };
  const Expected expected[] = {
      {TargetKind::kDramStreaming, "decode_step", "fp32", 1, 1, 0, Verdict::kUnsettled},  // 95% and 127%
      {TargetKind::kDramStreaming, "decode_step", "fp16", 1, 1, 0, Verdict::kNotMet},     // a miss wins
      {TargetKind::kDramStreaming, "decode_step", "bf16", 1, 0, 0, Verdict::kMet},
      {TargetKind::kGqa, "attention", "fp32", 2, 0, 1, Verdict::kUnsettled},
      {TargetKind::kGqa, "attention", "fp16", 2, 0, 1, Verdict::kNotMet},
      {TargetKind::kPrefill, "prefill_copy", "fp32", 1, 0, 0, Verdict::kMet},  // 150%
  };
  for (const Expected& e : expected) {
    SCOPED_TRACE(std::string(e.benchmark) + " " + e.dtype);
    const TargetLine* l = find(lines, e.kind, e.benchmark, e.dtype, e.threads);
    ASSERT_NE(l, nullptr);
    EXPECT_EQ(l->measured, l->kind == TargetKind::kDramStreaming && std::string(e.dtype) != "bf16" ? 2 : 1);
    EXPECT_EQ(l->ceiling_beaten, e.ceiling_beaten);
    EXPECT_EQ(l->ceilings_apart, e.ceilings_apart);
    EXPECT_EQ(l->verdict, e.verdict);
  }
}

// A row whose workers' FMA burst (core bracket) fell more than 10% below the median of the bursts
// its run took on them ran on a slowed core: it can keep a line from failing, never make it fail; a pair with
// such a row decides neither way.
// `r` run with --ceiling-bracket: memory brackets of 100 GB/s at both ends, FMA bursts of
// `before` and `after` GFLOP/s.
ResultRow cored(ResultRow r, double before, double after) {
  set(r, Col::ceiling_before_gbps, "100");
  set(r, Col::ceiling_after_gbps, "100");
  set(r, Col::ceiling_gbps, "100");
  set(r, Col::core_before_gflops, std::to_string(before));
  set(r, Col::core_after_gflops, std::to_string(after));
  return r;
}

TEST(EfficiencyTargets, LinesMissedOnlyByRowsWithASlowedCoreAreUnsettled) {
  MachineResults m = machine();
  const auto dram = [&](const std::string& dtype, int context, double gbps, double before, double after) {
    return cored(decode_row("decode_step", dtype, 1, context, 8 * kLlc, gbps, "DRAM"), before, after);
  };
  const ResultRow fma = summary_row({{Col::run_id, "run-a"}, {Col::benchmark, "ceiling_fma"}, {Col::threads, "1"},
                                     {Col::aggregate, "none"}, {Col::ns_per_step, "1e6"}, {Col::flops, "2e8"},
                                     {Col::gflops, "200"}, {Col::valid, "1"}});
  m.summaries = {fma,
                 dram("fp32", 16384, 95, 200, 200), dram("fp32", 32768, 60, 150, 150),  // 75% of the run's 200
                 dram("fp16", 16384, 60, 100, 200), dram("fp16", 32768, 70, 200, 190),  // a firm miss (95%)
                 dram("bf16", 16384, 95, 100, 100),                                     // slowed, but met
                 cored(timed_row("attention", "fp32", 1, 8, 8, 1000), 100, 200),        // slowed G = 1 row
                 cored(timed_row("attention", "fp32", 1, 64, 8, 1050), 200, 200),       // 1.05x
                 cored(timed_row("attention", "fp16", 1, 8, 8, 1000), 200, 200),
                 cored(timed_row("attention", "fp16", 1, 64, 8, 2000), 200, 90)};      // 2.0x, slowed
  const RunCeilings ceilings(m);
  EXPECT_DOUBLE_EQ(*ceilings.core_fraction(m.summaries[2]), 0.75);
  EXPECT_DOUBLE_EQ(*ceilings.usual_fma_gflops(m.summaries[2]), 200);  // the median of 19 bursts
  EXPECT_EQ(ceilings.core_slowed_note(m.summaries[2]), "core at 75% of its run's usual FMA rate");
  EXPECT_EQ(ceilings.core_slowed_note(m.summaries[4]), "");  // 190 of 200: within 10%
  const auto lines = evaluate_targets(m).lines;
  struct Expected {
    TargetKind kind;
    const char* benchmark;
    const char* dtype;
    int measured, core_slowed;
    Verdict verdict;
  };
  const Expected expected[] = {
      {TargetKind::kDramStreaming, "decode_step", "fp32", 2, 1, Verdict::kUnsettled},
      {TargetKind::kDramStreaming, "decode_step", "fp16", 2, 1, Verdict::kNotMet},
      {TargetKind::kDramStreaming, "decode_step", "bf16", 1, 1, Verdict::kMet},
      {TargetKind::kGqa, "attention", "fp32", 1, 1, Verdict::kUnsettled},
      {TargetKind::kGqa, "attention", "fp16", 1, 1, Verdict::kUnsettled},
  };
  for (const Expected& e : expected) {
    SCOPED_TRACE(std::string(e.benchmark) + " " + e.dtype);
    const TargetLine* l = find(lines, e.kind, e.benchmark, e.dtype, 1);
    ASSERT_NE(l, nullptr);
    EXPECT_EQ(l->measured, e.measured);
    EXPECT_EQ(l->core_slowed, e.core_slowed);
    EXPECT_EQ(l->verdict, e.verdict);
  }
  // Without the run's ceiling_fma the rows' bursts alone give the median, and the bracket's faster
  // end is the ceiling.
  m.summaries.erase(m.summaries.begin());
  const RunCeilings bracket_only(m);
  EXPECT_DOUBLE_EQ(*bracket_only.core_fraction(m.summaries[1]), 0.75);           // 150 of 200
  EXPECT_DOUBLE_EQ(*bracket_only.core_fraction_of_ceiling(m.summaries[1]), 1.0);  // 150 -> 150
  EXPECT_DOUBLE_EQ(*bracket_only.core_fraction(m.summaries[2]), 0.5);            // 100 -> 200
  EXPECT_FALSE(bracket_only.core_fraction(decode_row("decode_step", "fp32", 1, 16, 1e5, 10, "L2")).has_value());
}

// A burst's GFLOP/s is its last worker's, so a run whose every burst had one worker slowed (the
// EMR host at 16 threads) measures its FMA ceiling in that state too: the bursts match it and
// only the workers' own rates (core_slowest_pct) show the slowed one. Such a row is marked as one
// with a slowed core, and a line it alone misses is unsettled.
TEST(EfficiencyTargets, ABurstsSlowestWorkerMarksTheRow) {
  MachineResults m = machine();
  const auto row = [](const std::string& dtype, double gbps, const std::string& slowest_pct, const std::string& pu) {
    ResultRow r = decode_row("decode_step", dtype, 1, 16384, 8 * kLlc, gbps, "DRAM");
    set(r, Col::ceiling_before_gbps, "100");
    set(r, Col::ceiling_after_gbps, "100");
    set(r, Col::ceiling_gbps, "100");
    set(r, Col::core_before_gflops, "200");
    set(r, Col::core_after_gflops, "200");
    set(r, Col::core_slowest_pct, slowest_pct);
    set(r, Col::core_slowest_pu, pu);
    return r;
  };
  const ResultRow fma = summary_row({{Col::run_id, "run-a"}, {Col::benchmark, "ceiling_fma"}, {Col::threads, "1"},
                                     {Col::aggregate, "none"}, {Col::ns_per_step, "1e6"}, {Col::flops, "2e8"},
                                     {Col::gflops, "200"}, {Col::valid, "1"}});
  m.summaries = {fma, row("fp32", 60, "51.4", "7"), row("fp16", 60, "95", "3"), row("bf16", 60, "48", "")};
  const RunCeilings ceilings(m);
  EXPECT_DOUBLE_EQ(*ceilings.core_fraction(m.summaries[1]), 1.0);  // the bursts match the ceiling
  EXPECT_EQ(ceilings.core_slowed_note(m.summaries[1]), "a worker at 51% of the fastest's FMA rate (PU 7)");
  EXPECT_EQ(ceilings.core_slowed_note(m.summaries[2]), "");  // within 10%
  EXPECT_EQ(ceilings.core_slowed_note(m.summaries[3]), "a worker at 48% of the fastest's FMA rate");
  set(m.summaries[3], Col::core_before_gflops, "100");
  EXPECT_EQ(RunCeilings(m).core_slowed_note(m.summaries[3]),
            "core at 50% of its run's usual FMA rate; a worker at 48% of the fastest's FMA rate");
  const auto lines = evaluate_targets(m).lines;
  const TargetLine* fp32 = find(lines, TargetKind::kDramStreaming, "decode_step", "fp32", 1);
  const TargetLine* fp16 = find(lines, TargetKind::kDramStreaming, "decode_step", "fp16", 1);
  ASSERT_NE(fp32, nullptr);
  ASSERT_NE(fp16, nullptr);
  EXPECT_EQ(fp32->core_slowed, 1);
  EXPECT_EQ(fp32->verdict, Verdict::kUnsettled);
  EXPECT_EQ(fp16->core_slowed, 0);
  EXPECT_EQ(fp16->verdict, Verdict::kNotMet);
}

// A run measures its FMA ceiling again after its last benchmark (ceiling_fma_end); the faster end is
// the run's FMA ceiling, and fma_ends() pairs the two per run and thread count.
TEST(EfficiencyTargets, TheRunsFasterFmaEndIsTheCoresReference) {
  MachineResults m = machine();
  ResultRow row = decode_row("decode_step", "fp32", 1, 16384, 8 * kLlc, 90, "DRAM");
  set(row, Col::core_before_gflops, "200");
  set(row, Col::core_after_gflops, "200");
  const auto fma = [](const std::string& benchmark, const std::string& gflops) {
    return summary_row({{Col::run_id, "run-a"}, {Col::benchmark, benchmark}, {Col::threads, "1"},
                        {Col::aggregate, "none"}, {Col::ns_per_step, "1e6"}, {Col::gflops, gflops},
                        {Col::valid, "1"}});
  };
  m.summaries = {fma("ceiling_fma", "180"), fma("ceiling_fma_end", "250"), row};
  const RunCeilings ceilings(m);
  EXPECT_DOUBLE_EQ(*ceilings.fma_gflops(row), 250);
  EXPECT_DOUBLE_EQ(*ceilings.core_fraction_of_ceiling(row), 0.8);
  EXPECT_DOUBLE_EQ(*ceilings.usual_fma_gflops(row), 200);  // 180, 200, 200, 250
  EXPECT_EQ(ceilings.core_slowed_note(row), "");           // the usual rate, 80% of the ceiling
  const auto ends = ceilings.fma_ends();
  ASSERT_EQ(ends.size(), 1u);
  EXPECT_EQ(ends[0].run_id, "run-a");
  EXPECT_EQ(ends[0].threads, 1);
  EXPECT_DOUBLE_EQ(ends[0].start, 180);
  EXPECT_DOUBLE_EQ(ends[0].end, 250);
  EXPECT_TRUE(ceilings.crossing_ends().empty());
  // Thread counts in numeric order, not as text ("16" before "2").
  MachineResults two = m;
  for (const char* threads : {"16", "2"}) {
    for (ResultRow r : {fma("ceiling_fma", "180"), fma("ceiling_fma_end", "250")}) {
      set(r, Col::threads, threads);
      two.summaries.push_back(r);
    }
  }
  const auto ordered = RunCeilings(two).fma_ends();
  ASSERT_EQ(ordered.size(), 3u);
  EXPECT_EQ(ordered[0].threads, 1);
  EXPECT_EQ(ordered[1].threads, 2);
  EXPECT_EQ(ordered[2].threads, 16);
  // The start the faster: it stays the reference.
  m.summaries = {fma("ceiling_fma", "210"), fma("ceiling_fma_end", "120"), row};
  EXPECT_DOUBLE_EQ(*RunCeilings(m).fma_gflops(row), 210);
  EXPECT_DOUBLE_EQ(*RunCeilings(m).core_fraction_of_ceiling(row), 200.0 / 210);
  // A file holding only the end's row (one cut from a longer file) still gives the run's roof.
  m.summaries = {fma("ceiling_fma_end", "250"), row};
  EXPECT_DOUBLE_EQ(*RunCeilings(m).fma_gflops(row), 250);
  EXPECT_TRUE(RunCeilings(m).fma_ends().empty());
}

// One core's bursts wander within one run (the EMR host: 171-199 GFLOP/s in 95% of the bursts
// around 96 rows of one run, 190 and 204 at its ends), so a row is held to its run's usual rate,
// the median of every burst, not to the run's fastest. A run whose every row ran slowed (a core
// shared with a sibling thread throughout) has a slowed median too; there the rows stay marked
// against the ceiling once they lie more than 25% below it.
TEST(EfficiencyTargets, ACoreIsHeldToItsRunsUsualRateAndToItsCeiling) {
  MachineResults m = machine();
  const auto fma = [](const std::string& benchmark, const std::string& gflops) {
    return summary_row({{Col::run_id, "run-a"}, {Col::benchmark, benchmark}, {Col::threads, "1"},
                        {Col::aggregate, "none"}, {Col::ns_per_step, "1e6"}, {Col::gflops, gflops},
                        {Col::valid, "1"}});
  };
  const auto row = [](int context, double before, double after) {
    return cored(decode_row("decode_step", "fp32", 1, context, 8 * kLlc, 90, "DRAM"), before, after);
  };
  m.summaries = {fma("ceiling_fma", "190"), fma("ceiling_fma_end", "204"), row(4096, 186, 183),
                 row(8192, 177, 184), row(16384, 178, 180), row(32768, 199, 189), row(65536, 150, 181)};
  const RunCeilings wobble(m);
  EXPECT_DOUBLE_EQ(*wobble.usual_fma_gflops(m.summaries[3]), 183.5);  // the median of 12 bursts
  EXPECT_EQ(wobble.core_slowed_note(m.summaries[3]), "");             // 96% of it, 87% of 204
  EXPECT_EQ(wobble.core_slowed_note(m.summaries[4]), "");
  EXPECT_EQ(wobble.core_slowed_note(m.summaries[6]), "core at 82% of its run's usual FMA rate");

  // Every row at half the ceiling: at its run's usual rate, but far below its ceiling.
  m.summaries = {fma("ceiling_fma", "200"), fma("ceiling_fma_end", "196"), row(4096, 100, 101),
                 row(8192, 98, 100), row(16384, 100, 100)};
  const RunCeilings shared(m);
  EXPECT_DOUBLE_EQ(*shared.core_fraction(m.summaries[2]), 1.0);
  EXPECT_EQ(shared.core_slowed_note(m.summaries[2]), "core at 50% of its FMA ceiling");
  EXPECT_EQ(shared.core_slowed_note(m.summaries[3]), "core at 49% of its FMA ceiling");
  const auto lines = evaluate_targets(m).lines;
  const TargetLine* l = find(lines, TargetKind::kDramStreaming, "decode_step", "fp32", 1);
  ASSERT_NE(l, nullptr);
  EXPECT_EQ(l->core_slowed, 3);
}

TEST(EfficiencyTargets, AbsentRowsGiveNoLinesAndUnmeasuredLinesMerge) {
  MachineResults m = machine();
  m.summaries = {decode_row("decode_step", "fp32", 1, 16, 1e5, 10, "L2"), ceiling("ceiling_read", "L2", 1, 20)};
  EXPECT_TRUE(evaluate_targets(m).lines.empty());

  // No ceilings at all: one "not measured" line for every dtype and thread count.
  m.summaries = {decode_row("decode_step", "fp32", 1, 16384, 8 * kLlc, 10, "DRAM"),
                 decode_row("decode_step", "bf16", 2, 16384, 4 * kLlc, 10, "DRAM"),
                 decode_row("decode_step", "fp32", 2, 16384, 8 * kLlc, 10, "DRAM")};
  const auto lines = evaluate_targets(m).lines;
  ASSERT_EQ(lines.size(), 1u);
  EXPECT_EQ(lines[0].verdict, Verdict::kNotMeasured);
  EXPECT_EQ(lines[0].dtypes, (std::vector<std::string>{"fp32", "bf16"}));
  EXPECT_EQ(lines[0].threads, (std::vector<int>{1, 2}));
  EXPECT_EQ(lines[0].unmeasured, 3);
}

TEST(EfficiencyTargets, LinesComeInTargetThenDtypeThenThreadOrder) {
  MachineResults m = machine();
  ResultRow llc = decode_row("decode_step", "fp32", 1, 1024, kLlc / 4, 50, "L3");
  set(llc, Col::ceiling_gbps, "100");
  ResultRow d16 = decode_row("decode_step", "bf16", 16, 16384, 8 * kLlc, 50, "DRAM");
  set(d16, Col::ceiling_gbps, "100");
  ResultRow d1 = decode_row("decode_step", "bf16", 1, 16384, 8 * kLlc, 50, "DRAM");
  set(d1, Col::ceiling_gbps, "100");
  ResultRow f1 = decode_row("decode_step", "fp32", 1, 16384, 8 * kLlc, 50, "DRAM");
  set(f1, Col::ceiling_gbps, "100");
  m.summaries = {llc, d16, d1, f1};
  const auto lines = evaluate_targets(m).lines;
  ASSERT_EQ(lines.size(), 4u);
  EXPECT_EQ(lines[0].dtypes.front(), "fp32");
  EXPECT_EQ(lines[1].dtypes.front(), "bf16");
  EXPECT_EQ(lines[1].threads.front(), 1);
  EXPECT_EQ(lines[2].threads.front(), 16);
  EXPECT_EQ(lines[3].kind, TargetKind::kLlcResident);
}

}  // namespace
}  // namespace kvb
