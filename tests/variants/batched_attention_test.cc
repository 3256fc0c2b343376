#include "kernels/batched_attention.h"

#include <cmath>
#include <cstdlib>
#include <memory>
#include <vector>

#include "gtest/gtest.h"
#include "kernels/variant_costs.h"
#include "tests/variants/variant_fixtures.h"

namespace kvb {
namespace {

using testing::OwnedCache;

// Ragged batch with one empty sequence and one of a single row.
class RaggedBatch : public ::testing::Test {
 protected:
  void SetUp() override {
    std::mt19937 rng(99);
    for (std::int64_t len : lens_) {
      caches_.push_back(std::make_unique<OwnedCache>(
          testing::small_shape(8, 2, 64, kCapacity, DType::kF32)));
      ASSERT_EQ(caches_.back()->status(), Status::kOk);
      const auto rows = testing::random_tokens(kCapacity, shape(), rng);
      testing::append_all(caches_.back()->view(), kLayer, rows, kCapacity);  // rows past len: noise
      views_.push_back(caches_.back()->view());
      (void)len;
    }
    q_ = testing::random_floats(static_cast<std::size_t>(batch() * shape().q_heads * shape().head_dim),
                                rng, -3.0f, 3.0f);
  }
  const CacheShape& shape() const { return caches_.empty() ? fallback_ : caches_[0]->geometry().shape(); }
  std::int32_t batch() const { return static_cast<std::int32_t>(lens_.size()); }
  std::size_t per_seq() const { return static_cast<std::size_t>(shape().q_heads) * shape().head_dim; }
  float scale() const { return 1.0f / std::sqrt(float(shape().head_dim)); }

  // Largest error of out [batch][q_heads][d] against the per-sequence reference.
  double error(const std::vector<float>& out) {
    double worst = 0;
    for (std::int32_t b = 0; b < batch(); ++b) {
      const auto ref = testing::reference(views_[b], kLayer, lens_[b], q_.data() + b * per_seq());
      worst = std::max(worst, testing::max_abs_diff(out, ref, b * per_seq()));
    }
    return worst;
  }

  static constexpr std::int64_t kCapacity = 320;
  static constexpr std::int32_t kLayer = 1;
  std::vector<std::int64_t> lens_ = {37, 0, 300, 1, 129, 300};
  CacheShape fallback_ = testing::small_shape(8, 2, 64, kCapacity, DType::kF32);
  std::vector<std::unique_ptr<OwnedCache>> caches_;
  std::vector<CacheView> views_;
  std::vector<float> q_;
};

TEST_F(RaggedBatch, SequentialMatchesReference) {
  std::vector<float> out(batch() * per_seq(), -7.0f);
  std::vector<float> ws(static_cast<std::size_t>(attention_partial_floats(shape())));
  ASSERT_EQ(batched_decode_attention(views_.data(), batch(), kLayer, lens_.data(), q_.data(),
                                     scale(), out.data(), ws.data()),
            Status::kOk);
  EXPECT_LE(error(out), testing::kKernelTol);
  for (std::size_t i = 0; i < per_seq(); ++i) ASSERT_EQ(out[per_seq() + i], 0.0f) << "empty sequence";
}

TEST_F(RaggedBatch, EveryPlanMatchesReferenceAndCoversEachRowOnce) {
  const std::int32_t kv = shape().kv_heads;
  std::int64_t total = 0;
  for (std::int64_t l : lens_) total += l * kv;
  for (BatchSplit split : {BatchSplit::kByRows, BatchSplit::kBySequence}) {
    for (std::int32_t threads : {1, 2, 3, 7, 16}) {
      SCOPED_TRACE(::testing::Message() << "threads " << threads << " split " << int(split));
      const std::int64_t cap = batch_work_items_bound(batch(), kv, threads);
      std::vector<BatchWorkItem> items(static_cast<std::size_t>(cap));
      std::vector<std::int64_t> first(static_cast<std::size_t>(threads) + 1);
      std::int64_t n = 0;
      ASSERT_EQ(plan_batch_work(lens_.data(), batch(), kv, threads, split, items.data(), cap, &n,
                                first.data()),
                Status::kOk);
      ASSERT_LE(n, cap);
      EXPECT_EQ(first[0], 0);
      EXPECT_EQ(first[threads], n);
      // Coverage: each (seq, head) range tiled exactly, in order.
      std::vector<std::int64_t> next(static_cast<std::size_t>(batch() * kv), 0);
      for (std::int64_t i = 0; i < n; ++i) {
        const BatchWorkItem& it = items[i];
        ASSERT_LT(it.t0, it.t1) << "no empty items";
        EXPECT_EQ(it.t0, next[it.seq * kv + it.kv_head]);
        next[it.seq * kv + it.kv_head] = it.t1;
      }
      for (std::int32_t b = 0; b < batch(); ++b)
        for (std::int32_t h = 0; h < kv; ++h) EXPECT_EQ(next[b * kv + h], lens_[b]);
      // Balance: by rows, every thread's share is total/threads rounded.
      if (split == BatchSplit::kByRows) {
        for (std::int32_t t = 0; t < threads; ++t) {
          std::int64_t rows = 0;
          for (std::int64_t i = first[t]; i < first[t + 1]; ++i) rows += items[i].t1 - items[i].t0;
          EXPECT_LE(std::llabs(rows * threads - total), threads) << "thread " << t;
        }
      }
      // Run items (any order is fine: each writes its own partial), then merge.
      const std::int64_t pf = attention_partial_floats(shape());
      std::vector<float> storage(static_cast<std::size_t>(std::max<std::int64_t>(n, 1) * pf));
      for (std::int64_t i = n - 1; i >= 0; --i)
        ASSERT_EQ(batch_item_attention(views_.data(), batch(), kLayer, items[i], q_.data(), scale(),
                                       attention_partial_from(storage.data() + i * pf, shape())),
                  Status::kOk);
      std::vector<float> out(batch() * per_seq(), -7.0f);
      ASSERT_EQ(merge_batch_partials(shape(), batch(), items.data(), n, storage.data(), out.data()),
                Status::kOk);
      EXPECT_LE(error(out), testing::kKernelTol);
    }
  }
}

TEST_F(RaggedBatch, BySequenceIsUnbalancedOnRaggedLengths) {
  // Two threads, whole sequences: {37, 0, 300} vs {1, 129, 300} are close, but {300, 300} in one
  // half is the point of the row split: check it with a skewed batch.
  const std::int64_t skew[] = {1000, 1000, 1, 1};
  BatchWorkItem items[4 * 2 + 2];
  std::int64_t first[3], n = 0;
  ASSERT_EQ(plan_batch_work(skew, 4, 2, 2, BatchSplit::kBySequence, items, 10, &n, first), Status::kOk);
  std::int64_t rows0 = 0;
  for (std::int64_t i = first[0]; i < first[1]; ++i) rows0 += items[i].t1 - items[i].t0;
  EXPECT_EQ(rows0, 4000);
  ASSERT_EQ(plan_batch_work(skew, 4, 2, 2, BatchSplit::kByRows, items, 10, &n, first), Status::kOk);
  rows0 = 0;
  for (std::int64_t i = first[0]; i < first[1]; ++i) rows0 += items[i].t1 - items[i].t0;
  EXPECT_EQ(rows0, 2002);
}

TEST(BatchPlan, RejectsBadParameters) {
  const std::int64_t lens[] = {4, 5};
  const std::int64_t negative[] = {4, -1};
  BatchWorkItem items[16];
  std::int64_t first[5], n = 0;
  EXPECT_EQ(plan_batch_work(lens, 0, 2, 2, BatchSplit::kByRows, items, 16, &n, first),
            Status::kInvalidShape) << "B = 0";
  EXPECT_EQ(plan_batch_work(lens, 2, 2, 0, BatchSplit::kByRows, items, 16, &n, first),
            Status::kInvalidShape) << "no threads";
  EXPECT_EQ(plan_batch_work(negative, 2, 2, 2, BatchSplit::kByRows, items, 16, &n, first),
            Status::kOutOfRange);
  EXPECT_EQ(plan_batch_work(lens, 2, 2, 2, BatchSplit::kByRows, items, 5, &n, first),
            Status::kWorkspaceTooSmall);
  EXPECT_EQ(plan_batch_work(nullptr, 2, 2, 2, BatchSplit::kByRows, items, 16, &n, first),
            Status::kNullArgument);
  std::vector<float> out(8);
  EXPECT_EQ(batched_decode_attention(nullptr, 0, 0, lens, out.data(), 1.0f, out.data(), out.data()),
            Status::kInvalidShape);
}

TEST(BatchPlan, RejectsMixedShapesAndLongSequences) {
  OwnedCache a(testing::small_shape(8, 2, 64, 16, DType::kF32));
  OwnedCache b(testing::small_shape(8, 2, 32, 16, DType::kF32));
  const CacheView views[] = {a.view(), b.view()};
  const std::int64_t lens[] = {4, 4};
  std::vector<float> q(2 * 8 * 64), out(q.size()), ws(2 * 4 * 66);
  EXPECT_EQ(batched_decode_attention(views, 2, 0, lens, q.data(), 1.0f, out.data(), ws.data()),
            Status::kInvalidShape);
  const CacheView same[] = {a.view(), a.view()};
  const std::int64_t too_long[] = {4, 17};
  EXPECT_EQ(batched_decode_attention(same, 2, 0, too_long, q.data(), 1.0f, out.data(), ws.data()),
            Status::kOutOfRange);
}

TEST(BatchPlan, ItemOutsideTheBatchIsRejected) {
  OwnedCache a(testing::small_shape(8, 2, 64, 16, DType::kF32));
  const CacheView views[] = {a.view()};
  std::vector<float> q(8 * 64), storage(4 * 66);
  const AttentionPartial p = attention_partial_from(storage.data(), a.geometry().shape());
  EXPECT_EQ(batch_item_attention(views, 1, 0, BatchWorkItem{1, 0, 0, 4}, q.data(), 1.0f, p),
            Status::kOutOfRange) << "sequence";
  EXPECT_EQ(batch_item_attention(views, 1, 0, BatchWorkItem{0, 2, 0, 4}, q.data(), 1.0f, p),
            Status::kOutOfRange) << "kv_head";
  EXPECT_EQ(batch_item_attention(views, 1, 0, BatchWorkItem{0, 1, 3, 17}, q.data(), 1.0f, p),
            Status::kOutOfRange) << "positions";
  EXPECT_EQ(batch_item_attention(views, 1, 0, BatchWorkItem{0, 1, 0, 16}, q.data(), 1.0f, p),
            Status::kOk);
}

TEST(BatchCost, SumsSequences) {
  const CacheShape s = testing::small_shape(8, 2, 64, 100, DType::kF32);
  const std::int64_t lens[] = {10, 0, 90};
  const Cost c = batched_attention_cost(s, lens, 3);
  Cost e = attention_cost(s, 10);
  e += attention_cost(s, 0);
  e += attention_cost(s, 90);
  EXPECT_EQ(c.bytes_read, e.bytes_read);
  EXPECT_EQ(c.flops, e.flops);
}

}  // namespace
}  // namespace kvb
