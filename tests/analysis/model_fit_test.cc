#include "analysis/model_fit.h"

#include <gtest/gtest.h>

#include "analysis/input_error.h"
#include "tests/analysis/synthetic_results.h"
#include "tests/analysis/test_support.h"

namespace kvb {
namespace {

ModelPreset qwen3() { return {"qwen3-0.6b", "", 28, 8, 128, 40960}; }

TEST(ModelFit, BytesPerTokenPerDtype) {
  // 234,881,024 bytes for 1024 tokens in fp32 (project brief).
  EXPECT_EQ(kv_bytes_per_token(qwen3(), "fp32") * 1024, 234881024);
  EXPECT_EQ(kv_bytes_per_token(qwen3(), "fp16"), 2 * 28 * 8 * 128 * 2);
  EXPECT_EQ(kv_bytes_per_token(qwen3(), "bf16"), 2 * 28 * 8 * 128 * 2);
  EXPECT_EQ(kv_bytes_per_token(qwen3(), "int8"), 2 * 28 * 8 * (128 + 4));  // + fp32 scale per row
  EXPECT_EQ(kv_bytes_per_token(qwen3(), "fp8"), 0);
}

TEST(ModelFit, LargestContextInLlc) {
  const double llc = 32 * 1024 * 1024.0;
  EXPECT_EQ(largest_context_in_llc(qwen3(), "fp32", llc), 146);  // 33554432 / 229376 = 146.3
  EXPECT_EQ(largest_context_in_llc(qwen3(), "int8", llc), 567);  // 33554432 / 59136 = 567.4
  EXPECT_EQ(largest_context_in_llc(qwen3(), "fp32", 1000), 0);
  // Exactly fitting caches count as fitting.
  EXPECT_EQ(largest_context_in_llc(qwen3(), "fp32", 234881024.0), 1024);
}

TEST(ModelPresets, LoadsTheRepositoryPresets) {
  const auto presets = load_model_presets(std::string(KVBENCH_SOURCE_DIR) + "/configs/models");
  const auto it = std::find_if(presets.begin(), presets.end(), [](const ModelPreset& p) { return p.name == "qwen3-0.6b"; });
  ASSERT_NE(it, presets.end());
  EXPECT_EQ(it->layers, 28);
  EXPECT_EQ(it->kv_heads, 8);
  EXPECT_EQ(it->head_dim, 128);
  EXPECT_EQ(it->max_context, 40960);
}

TEST(ModelPresets, BadPresetsAreInputErrors) {
  const auto dir = testing::scratch_dir("ModelPresets.Bad");
  testing::write_text(dir / "broken.ini", "model = broken\nlayers = 2\nkv-heads = 1\n");  // no head-dim
  try {
    load_model_presets(dir.string());
    FAIL() << "expected InputError";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("broken.ini"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("head-dim"), std::string::npos) << e.what();
  }
  testing::write_text(dir / "broken.ini", "model = broken\nlayers = two\nkv-heads = 1\nhead-dim = 8\nmax-context = 8\n");
  EXPECT_THROW(load_model_presets(dir.string()), InputError);
  EXPECT_THROW(load_model_presets((dir / "missing").string()), InputError);
}

}  // namespace
}  // namespace kvb
