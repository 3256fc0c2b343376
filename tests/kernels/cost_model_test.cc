#include "kernels/cost_model.h"

#include "gtest/gtest.h"

namespace kvb {
namespace {

CacheShape shape(DType t) {
  return {.layers = 28, .q_heads = 16, .kv_heads = 8, .head_dim = 128, .capacity = 4096, .dtype = t};
}

TEST(CostModel, AttentionBytesAndFlops) {
  const Cost c = attention_cost(shape(DType::kF32), 1024);
  EXPECT_EQ(c.bytes_read, 2LL * 8 * 1024 * 128 * 4 + 16 * 128 * 4);
  EXPECT_EQ(c.bytes_written, 16 * 128 * 4);
  EXPECT_EQ(c.flops, 16LL * 1024 * (4 * 128 + kSoftmaxFlopsPerScore) + 16 * 128);
  // Whole-model KV bytes agree with the sizing formula.
  EXPECT_EQ((attention_cost(shape(DType::kF32), 1024).bytes_read - 16 * 128 * 4) * 28,
            kv_cache_bytes(28, 8, 1024, 128, DType::kF32));
}

TEST(CostModel, Int8CountsScaleBytes) {
  const Cost c = attention_cost(shape(DType::kI8), 100);
  EXPECT_EQ(c.bytes_read, 2LL * 8 * 100 * (128 + 4) + 16 * 128 * 4);
  const Cost a = append_cost(shape(DType::kI8));
  EXPECT_EQ(a.bytes_read, 2LL * 8 * 128 * 4);
  EXPECT_EQ(a.bytes_written, 2LL * 8 * (128 + 4));
}

TEST(CostModel, LowPrecisionRowsCountPayloadPlusScale) {
  const Cost c4 = attention_cost(shape(DType::kI4), 100);
  EXPECT_EQ(c4.bytes_read, 2LL * 8 * 100 * (64 + 4) + 16 * 128 * 4);
  EXPECT_EQ(append_cost(shape(DType::kI4)).bytes_written, 2LL * 8 * (64 + 4));
  for (DType t : {DType::kF8E4M3, DType::kF8E5M2}) {
    EXPECT_EQ(attention_cost(shape(t), 100).bytes_read, 2LL * 8 * 100 * (128 + 4) + 16 * 128 * 4);
    EXPECT_EQ(prefill_copy_cost(shape(t), 3).bytes_written, 3LL * 2 * 8 * (128 + 4));
  }
  EXPECT_EQ(attention_cost(shape(DType::kI4), 100).flops, attention_cost(shape(DType::kF32), 100).flops);
}

TEST(CostModel, PrefillAndDecodeStepCompose) {
  const CacheShape s = shape(DType::kF16);
  const Cost p = prefill_copy_cost(s, 10);
  EXPECT_EQ(p.bytes_written, 10 * append_cost(s).bytes_written);
  const Cost step = decode_step_cost(s, 512);
  Cost expect = append_cost(s);
  expect += attention_cost(s, 512);
  expect = expect * 28;
  EXPECT_EQ(step.bytes_read, expect.bytes_read);
  EXPECT_EQ(step.bytes_written, expect.bytes_written);
  EXPECT_EQ(step.flops, expect.flops);
}

}  // namespace
}  // namespace kvb
