#include <gtest/gtest.h>

#include "benchmarks/sweep.h"
#include "benchmarks/usage_error.h"

namespace kvb {
namespace {

MachineFacts two_pu_machine() {
  MachineFacts m;
  m.pus_total = 2;
  m.l2_bytes = 2 << 20;
  m.llc_bytes = 32 << 20;
  m.mem_bytes = std::int64_t{8} << 30;
  m.mem_available = std::int64_t{4} << 30;
  return m;
}

SweepSpec qwen_like() {
  SweepSpec s;
  s.model = "qwen3-0.6b";
  s.layers = {28};
  s.q_heads = {16};
  s.kv_heads = {8};
  s.head_dim = {128};
  s.context = {1024};
  s.max_context = 40960;
  return s;
}

// qwen_like with context = auto, for the dtypes given.
SweepSpec qwen_auto(std::vector<DType> dtypes) {
  SweepSpec s = qwen_like();
  s.context.clear();
  s.context_auto = true;
  s.dtypes = std::move(dtypes);
  return s;
}

TEST(Sweep, CartesianProductOfEveryList) {
  SweepSpec s = qwen_like();
  s.context = {64, 128, 256};
  s.dtypes = {DType::kF32, DType::kBF16};
  s.threads = {"1", "all"};
  s.cache_states = {CacheState::kWarm, CacheState::kCold};
  const SweepPlan plan = expand_sweep(s, two_pu_machine());
  EXPECT_TRUE(plan.rejected.empty());
  ASSERT_EQ(plan.configs.size(), 3u * 2 * 2 * 2);
  EXPECT_EQ(plan.configs.back().threads, 2);  // "all" = every PU
}

TEST(Sweep, InvalidCombinationsAreListedWithReasons) {
  SweepSpec s = qwen_like();
  s.q_heads = {16, 12};
  s.kv_heads = {8};
  s.context = {1024, 50000};
  s.threads = {"1", "3"};
  const SweepPlan plan = expand_sweep(s, two_pu_machine());
  ASSERT_EQ(plan.configs.size(), 1u);  // q16, ctx 1024, 1 thread
  ASSERT_EQ(plan.rejected.size(), 7u);
  bool saw_gqa = false, saw_capacity = false, saw_threads = false;
  for (const RejectedConfig& r : plan.rejected) {
    saw_gqa |= r.reason.find("not a multiple of kv_heads") != std::string::npos;
    saw_capacity |= r.reason.find("beyond the model's capacity") != std::string::npos;
    saw_threads |= r.reason.find("exceeds the 2 PUs") != std::string::npos;
  }
  EXPECT_TRUE(saw_gqa);
  EXPECT_TRUE(saw_capacity);
  EXPECT_TRUE(saw_threads);
}

// Shapes the cache geometry refuses are named for what is wrong, not as "invalid cache shape".
TEST(Sweep, OddInt4RowsAndUnaddressableCachesAreNamed) {
  SweepSpec s = qwen_like();
  s.head_dim = {7};
  s.dtypes = {DType::kI4, DType::kI8};
  SweepPlan plan = expand_sweep(s, two_pu_machine());
  ASSERT_EQ(plan.rejected.size(), 1u);  // int8 rows of 7 bytes are fine
  EXPECT_NE(plan.rejected[0].reason.find("head_dim 7 is odd: int4 packs two elements per byte"), std::string::npos)
      << plan.rejected[0].reason;

  s = qwen_like();
  s.max_context = 0;
  s.context = {std::int64_t{1} << 40, std::int64_t{1} << 20};
  plan = expand_sweep(s, two_pu_machine());
  ASSERT_EQ(plan.rejected.size(), 1u);
  EXPECT_NE(plan.rejected[0].reason.find("beyond the 72057594037927936 (64 PiB) kvbench addresses"),
            std::string::npos)
      << plan.rejected[0].reason;

  // Beyond kvbench's limits per dimension: the reason names the dimension, its value and the limit.
  s = qwen_like();
  s.head_dim = {100000};
  plan = expand_sweep(s, two_pu_machine());
  ASSERT_EQ(plan.rejected.size(), 1u);
  EXPECT_NE(plan.rejected[0].reason.find("head_dim 100000 is beyond the 65536 kvbench allows"), std::string::npos)
      << plan.rejected[0].reason;
}

TEST(Sweep, MalformedPinIsAnError) {
  SweepSpec s = qwen_like();
  s.pins = {"spread"};
  EXPECT_THROW(expand_sweep(s, two_pu_machine()), UsageError);
  s.pins = {"pus:0+1"};
  s.threads = {"1"};
  const SweepPlan plan = expand_sweep(s, two_pu_machine());
  ASSERT_EQ(plan.rejected.size(), 1u);  // two PUs for one thread
}

TEST(Sweep, WeightsStateNeedsModelSizes) {
  SweepSpec s = qwen_like();
  s.cache_states = {CacheState::kWeights};
  EXPECT_EQ(expand_sweep(s, two_pu_machine()).rejected.size(), 1u);
  s.hidden_size = 1024;
  s.intermediate_size = 3072;
  EXPECT_EQ(expand_sweep(s, two_pu_machine()).configs.size(), 1u);
}

TEST(Sweep, AutoContextsSpanL2LlcAndDram) {
  SweepSpec s = qwen_auto({DType::kF32, DType::kI8});
  const MachineFacts m = two_pu_machine();
  const SweepPlan plan = expand_sweep(s, m);
  ASSERT_EQ(plan.configs.size(), 6u);
  for (std::size_t i = 0; i < plan.configs.size(); i += 3) {
    EXPECT_LT(plan.configs[i].kv_bytes(), m.l2_bytes);
    EXPECT_LE(plan.configs[i + 1].kv_bytes(), m.llc_bytes / 2);
    EXPECT_GT(plan.configs[i + 1].kv_bytes(), m.llc_bytes / 4);
    EXPECT_GE(plan.configs[i + 2].kv_bytes(), 4 * m.llc_bytes);
    EXPECT_GE(plan.configs[i + 2].kv_bytes(), std::int64_t{1} << 30);  // as the DRAM ceiling
    EXPECT_LT(plan.configs[i + 2].kv_bytes(), (std::int64_t{1} << 30) + (std::int64_t{1} << 20));
  }
}

// With 16 threads whose L2s (2 MiB each) hold half of a 64 MiB LLC (the Emerald Rapids host, LLC
// measured), the LLC-resident context sits between their 32 MiB and the LLC, so it is
// LLC-resident at 16 threads too; at 1 thread it stays at LLC/2.
TEST(Sweep, AutoLlcContextStaysAboveTheThreadsL2s) {
  SweepSpec s = qwen_auto({DType::kF16});
  MachineFacts m = two_pu_machine();
  m.pus_total = 16;
  m.llc_bytes = std::int64_t{64} << 20;
  m.mem_available = std::int64_t{64} << 30;
  s.threads = {"1"};
  SweepPlan plan = expand_sweep(s, m);
  ASSERT_EQ(plan.configs.size(), 3u);
  EXPECT_LE(plan.configs[1].kv_bytes(), m.llc_bytes / 2);
  EXPECT_GT(plan.configs[1].kv_bytes(), m.llc_bytes / 4);
  s.threads = {"1", "16"};
  plan = expand_sweep(s, m);
  ASSERT_EQ(plan.configs.size(), 6u);
  int llc_resident = 0;
  for (const DecodeConfig& c : plan.configs) {
    if (c.kv_bytes() < 16 * m.l2_bytes || c.kv_bytes() > m.llc_bytes) continue;
    ++llc_resident;
    EXPECT_GT(c.kv_bytes(), 16 * m.l2_bytes + (std::int64_t{4} << 20));  // L3 at 16 threads
    EXPECT_LE(c.kv_bytes(), m.llc_bytes - (std::int64_t{8} << 20));
  }
  EXPECT_EQ(llc_resident, 2);  // one context, at 1 and at 16 threads
}

// A machine whose LLC is so large that 4 x LLC is more positions than the model holds (a big
// cache, or a VM reporting its host's): the auto context is held to the capacity, with a note,
// instead of making the default sweep invalid.
TEST(Sweep, AutoContextsBeyondTheModelsCapacityAreHeldToIt) {
  SweepSpec s = qwen_auto({DType::kI8});
  MachineFacts m = two_pu_machine();
  m.llc_bytes = std::int64_t{1016} << 20;
  m.mem_available = std::int64_t{20} << 30;
  const SweepPlan plan = expand_sweep(s, m);
  EXPECT_TRUE(plan.rejected.empty());
  ASSERT_EQ(plan.configs.size(), 3u);
  EXPECT_EQ(plan.configs.back().shape.context, s.max_context);
  ASSERT_EQ(plan.notes.size(), 1u);
  EXPECT_NE(plan.notes[0].find("held to 40960"), std::string::npos) << plan.notes[0];
  // An explicit context beyond the capacity is still the user's error.
  s.context_auto = false;
  s.context = {50000};
  EXPECT_EQ(expand_sweep(s, m).rejected.size(), 1u);
}

// 32 layers, 32 query / 8 KV heads, head_dim 128, context 8192 through a window of 4096.
DecodeConfig sliding_window_config() {
  DecodeConfig c;
  c.shape.layers = 32;
  c.shape.q_heads = 32;
  c.shape.kv_heads = 8;
  c.shape.head_dim = 128;
  c.shape.context = 8192;
  c.shape.window = 4096;
  return c;
}

TEST(Sweep, SlidingWindowBoundsAttendedPositions) {
  const DecodeConfig c = sliding_window_config();
  EXPECT_EQ(c.attended(), 4096);
  EXPECT_EQ(c.cache_shape().capacity, 4096);
  EXPECT_EQ(c.kv_bytes(), std::int64_t{2} * 32 * 8 * 4096 * 128 * 4);
}

// prefill_copy gives every layer its own fp32 source for the attended positions, whatever the
// cache's dtype: for int8 four times the cache's row bytes.
TEST(Sweep, PrefillSourcesAreOnePerLayerInFp32) {
  DecodeConfig c = sliding_window_config();
  EXPECT_EQ(prefill_source_bytes(c), std::int64_t{2} * 32 * 8 * 4096 * 128 * 4);
  c.shape.window = 0;
  c.dtype = DType::kI8;
  EXPECT_EQ(prefill_source_bytes(c), std::int64_t{2} * 32 * 8 * 8192 * 128 * 4);
  EXPECT_EQ(prefill_source_bytes(c), 4 * std::int64_t{2} * 32 * 8 * 8192 * 128);  // 4x the int8 rows
}

// Gemma-3-style 5:1 over 62 layers: 10 full periods (50 sliding) + 2 left over, both sliding.
TEST(Sweep, SlidingPatternSplitsLayersIntoRingAndFullParts) {
  DecodeConfig c;
  c.shape.layers = 62;
  c.shape.q_heads = 32;
  c.shape.kv_heads = 16;
  c.shape.head_dim = 128;
  c.shape.context = 8192;
  c.shape.window = 1024;
  c.shape.sliding_layers = 5;
  c.shape.global_layers = 1;
  EXPECT_TRUE(c.hybrid());
  EXPECT_EQ(c.sliding_layer_count(), 52);
  EXPECT_EQ(c.sliding_pattern(), "5:1");
  const std::vector<DecodeConfig> parts = c.parts();
  ASSERT_EQ(parts.size(), 2u);
  EXPECT_EQ(parts[0].shape.layers, 52);
  EXPECT_EQ(parts[0].attended(), 1024);
  EXPECT_EQ(parts[1].shape.layers, 10);
  EXPECT_EQ(parts[1].shape.window, 0);
  EXPECT_EQ(parts[1].attended(), 8192);
  const std::int64_t row = std::int64_t{2} * 16 * 128 * 4;  // K+V of one position, one layer
  EXPECT_EQ(c.kv_bytes(), row * (52 * 1024 + 10 * 8192));
  // One layer, or a window of 0, is not hybrid.
  c.shape.layers = 1;
  EXPECT_FALSE(c.hybrid());
  EXPECT_EQ(c.parts().size(), 1u);
  c.shape.layers = 62;
  c.shape.window = 0;
  EXPECT_FALSE(c.hybrid());
  EXPECT_EQ(c.kv_bytes(), row * 62 * 8192);
}

TEST(Sweep, SlidingPatternWithoutWindowIsRejected) {
  SweepSpec s = qwen_like();
  s.sliding_layers = 5;
  s.global_layers = 1;
  const SweepPlan plan = expand_sweep(s, two_pu_machine());
  ASSERT_FALSE(plan.rejected.empty());
  EXPECT_NE(plan.rejected[0].reason.find("needs a window"), std::string::npos);
}

TEST(Sweep, MemoryRefusalNamesRequiredAndAvailable) {
  SweepSpec s = qwen_like();
  s.context = {1024, 40960};  // 40960 fp32 tokens = 9.4 GB > 4 GiB available
  const SweepPlan plan = expand_sweep(s, two_pu_machine());
  ASSERT_EQ(plan.configs.size(), 2u);
  try {
    check_memory(plan.configs, two_pu_machine());
    FAIL() << "no refusal";
  } catch (const UsageError& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("1 configuration(s)"), std::string::npos) << what;
    EXPECT_NE(what.find("requires 9395"), std::string::npos) << what;
    EXPECT_NE(what.find("available 4294967296"), std::string::npos) << what;
  }
  EXPECT_NO_THROW(check_memory({plan.configs[0]}, two_pu_machine()));
}

TEST(Sweep, BracketMemoryCountsTheBuffersBesideTheLargestConfiguration) {
  const MachineFacts m = two_pu_machine();  // 4 GiB available
  EXPECT_NO_THROW(check_bracket_memory("decode_step a", 1LL << 31, 1LL << 31, m));
  try {
    check_bracket_memory("decode_step big", 3LL << 30, 2LL << 30, m);
    FAIL() << "no refusal";
  } catch (const UsageError& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("--ceiling-bracket needs 2147483648 bytes"), std::string::npos) << what;
    EXPECT_NE(what.find("decode_step big, 3221225472 bytes"), std::string::npos) << what;
    EXPECT_NE(what.find("available 4294967296"), std::string::npos) << what;
  }
}

TEST(Sweep, WeightBytesPerLayerOfQwen) {
  DecodeConfig c;
  c.shape.layers = 28;
  c.shape.q_heads = 16;
  c.shape.kv_heads = 8;
  c.shape.head_dim = 128;
  c.shape.hidden_size = 1024;
  c.shape.intermediate_size = 3072;
  c.shape.weight_bytes = 2;
  // q 1024x2048, k,v 1024x1024 each, o 2048x1024, gate/up/down 1024x3072: 15,728,640 params.
  EXPECT_EQ(c.weight_bytes_per_layer(), std::int64_t{15728640} * 2);
}

}  // namespace
}  // namespace kvb
