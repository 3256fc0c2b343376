#include <gtest/gtest.h>

#include "benchmarks/kv_sizing.h"

namespace kvb {
namespace {

MachineFacts machine() {
  MachineFacts m;
  m.llc_bytes = 32 << 20;
  m.mem_available = std::int64_t{16} << 30;
  return m;
}

SizingRequest qwen(std::int64_t context, DType dtype) {
  SizingRequest r;
  r.shape.model = "qwen3-0.6b";
  r.shape.layers = 28;
  r.shape.q_heads = 16;
  r.shape.kv_heads = 8;
  r.shape.head_dim = 128;
  r.shape.context = context;
  r.dtype = dtype;
  return r;
}

TEST(Sizing, Qwen3Fp32ExactBytes) {
  const SizingResult r = size_kv_cache(qwen(1024, DType::kF32), machine());
  EXPECT_EQ(r.total_bytes, 234881024);
  EXPECT_EQ(r.bytes_per_token, 229376);
  EXPECT_EQ(r.bytes_per_layer, 234881024 / 28);
  EXPECT_EQ(r.mha_total_bytes, 2 * 234881024);
  EXPECT_DOUBLE_EQ(r.gqa_saving_pct, 50.0);
  EXPECT_FALSE(r.fits_llc);
  EXPECT_TRUE(r.fits_ram);
}

TEST(Sizing, DtypesAndInt8Scales) {
  EXPECT_EQ(size_kv_cache(qwen(1024, DType::kF16), machine()).total_bytes, 117440512);
  EXPECT_EQ(size_kv_cache(qwen(1024, DType::kBF16), machine()).total_bytes, 117440512);
  // int8: 1 byte per element plus one fp32 scale per (layer, K|V, head, position) row.
  EXPECT_EQ(size_kv_cache(qwen(1024, DType::kI8), machine()).total_bytes,
            58720256 + std::int64_t{2} * 28 * 8 * 1024 * 4);
}

TEST(Sizing, LowPrecisionDtypes) {
  const std::int64_t scales = std::int64_t{2} * 28 * 8 * 1024 * 4;
  EXPECT_EQ(size_kv_cache(qwen(1024, DType::kF8E4M3), machine()).total_bytes, 58720256 + scales);
  EXPECT_EQ(size_kv_cache(qwen(1024, DType::kF8E5M2), machine()).total_bytes, 58720256 + scales);
  // int4: two elements per byte.
  EXPECT_EQ(size_kv_cache(qwen(1024, DType::kI4), machine()).total_bytes, 29360128 + scales);
}

TEST(Sizing, Llama3_8bAndMhaLlama7b) {
  SizingRequest r = qwen(8192, DType::kBF16);
  r.shape.layers = 32;
  r.shape.q_heads = 32;
  r.shape.kv_heads = 8;
  const SizingResult llama3 = size_kv_cache(r, machine());
  EXPECT_EQ(llama3.total_bytes, std::int64_t{1073741824});  // the well-known 1 GiB at 8k
  EXPECT_DOUBLE_EQ(llama3.gqa_saving_pct, 75.0);
  r.shape.kv_heads = 32;
  r.shape.context = 2048;
  const SizingResult llama7 = size_kv_cache(r, machine());
  EXPECT_EQ(llama7.total_bytes, std::int64_t{1073741824});  // 0.5 MiB/token x 2048
  EXPECT_DOUBLE_EQ(llama7.gqa_saving_pct, 0.0);
}

TEST(Sizing, SlidingWindowPagingAndUsers) {
  SizingRequest r = qwen(10000, DType::kF32);
  r.shape.window = 4096;
  EXPECT_EQ(size_kv_cache(r, machine()).positions, 4096);
  r.shape.window = 0;
  r.block_size = 16;
  r.users = 3;
  const SizingResult s = size_kv_cache(r, machine());
  EXPECT_EQ(s.positions, 10000);  // already a multiple of 16
  r.shape.context = 10001;
  const SizingResult t = size_kv_cache(r, machine());
  EXPECT_EQ(t.positions, 10016);
  EXPECT_EQ(t.total_bytes, 229376LL * 10016);
  EXPECT_EQ(t.users_total_bytes, 3 * t.total_bytes);
}

TEST(Sizing, FitsFlags) {
  SizingRequest r = qwen(16, DType::kF32);  // 3.5 MiB
  EXPECT_TRUE(size_kv_cache(r, machine()).fits_llc);
  r.users = 100000;
  EXPECT_FALSE(size_kv_cache(r, machine()).fits_ram);
}

}  // namespace
}  // namespace kvb
