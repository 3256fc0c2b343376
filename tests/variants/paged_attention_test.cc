#include "kernels/paged_attention.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <memory>
#include <tuple>
#include <vector>

#include "gtest/gtest.h"
#include "kernels/variant_costs.h"
#include "tests/variants/variant_fixtures.h"

namespace kvb {
namespace {

using testing::OwnedCache;

// A pool that owns its buffers.
class OwnedPool {
 public:
  explicit OwnedPool(const PagedShape& shape) {
    status_ = PagedGeometry::create(shape, &geometry_);
    if (!ok(status_)) return;
    data_.assign(static_cast<std::size_t>(geometry_.slots().data_bytes()), 0);
    scales_.assign(static_cast<std::size_t>(geometry_.slots().scale_bytes() / sizeof(float)), 0.0f);
  }
  Status status() const { return status_; }
  const PagedGeometry& geometry() const { return geometry_; }
  std::vector<unsigned char>& bytes() { return data_; }
  PagedView view() { return {&geometry_, data_.data(), scales_.empty() ? nullptr : scales_.data()}; }

 private:
  Status status_ = Status::kOk;
  PagedGeometry geometry_;
  std::vector<unsigned char> data_;
  std::vector<float> scales_;
};

PagedShape paged_shape(std::int32_t block_size, std::int64_t num_blocks, DType dtype) {
  return {.layers = 2, .q_heads = 8, .kv_heads = 2, .head_dim = 64, .num_blocks = num_blocks,
          .block_size = block_size, .dtype = dtype};
}

// block size, sequence length, shuffled pool, dtype
using PagedCase = std::tuple<std::int32_t, std::int64_t, bool, DType>;
class PagedSweep : public ::testing::TestWithParam<PagedCase> {};

TEST_P(PagedSweep, EqualsHeadMajorAndReference) {
  const auto [bs, seq_len, shuffled, dtype] = GetParam();
  const std::int64_t used = (seq_len + bs - 1) / bs;
  const std::int64_t num_blocks = used + 5;  // spare blocks: the table names a subset
  OwnedPool pool(paged_shape(bs, num_blocks, dtype));
  ASSERT_EQ(pool.status(), Status::kOk);
  std::vector<std::int32_t> order(static_cast<std::size_t>(num_blocks));
  assign_blocks(num_blocks, shuffled, 1234, order.data());
  const BlockTable table{order.data(), used};

  const PagedShape& p = pool.geometry().shape();
  OwnedCache head_major(testing::small_shape(p.q_heads, p.kv_heads, p.head_dim,
                                                       std::max<std::int64_t>(seq_len, 1), dtype));
  ASSERT_EQ(head_major.status(), Status::kOk);
  std::mt19937 rng(static_cast<unsigned>(bs * 1000 + seq_len));
  const std::int32_t layer = 1;
  const auto rows = testing::random_tokens(seq_len, head_major.geometry().shape(), rng);
  testing::append_all(head_major.view(), layer, rows, seq_len);

  std::vector<std::int64_t> slots(static_cast<std::size_t>(seq_len));
  ASSERT_EQ(slots_for_positions(pool.geometry(), table, 0, seq_len, slots.data()), Status::kOk);
  ASSERT_EQ(paged_write(pool.view(), layer, slots.data(), seq_len, rows.k.data(), rows.v.data()),
            Status::kOk);

  const auto q = testing::random_floats(static_cast<std::size_t>(p.q_heads) * p.head_dim, rng,
                                        -3.0f, 3.0f);
  const float scale = 1.0f / std::sqrt(float(p.head_dim));
  std::vector<float> out(q.size(), -7.0f);
  std::vector<float> ws(static_cast<std::size_t>(paged_attention_workspace_floats(p)));
  ASSERT_EQ(paged_decode_attention(pool.view(), layer, table, seq_len, q.data(), scale, out.data(),
                                   ws.data()),
            Status::kOk);

  const auto ref = testing::reference(head_major.view(), layer, seq_len, q.data());
  EXPECT_LE(testing::max_abs_diff(out, ref), testing::kKernelTol);
  std::vector<float> hm(q.size());
  std::vector<float> hws(static_cast<std::size_t>(attention_partial_floats(head_major.geometry().shape())));
  ASSERT_EQ(decode_attention(head_major.view(), layer, seq_len, q.data(), scale, hm.data(), hws.data()),
            Status::kOk);
  EXPECT_LE(testing::max_abs_diff(out, hm), 1e-5) << "paged vs head-major fast kernel";
}

INSTANTIATE_TEST_SUITE_P(
    BlocksLengthsDtypes, PagedSweep,
    ::testing::Values(PagedCase{8, 300, true, DType::kF32},    // partial last block
                      PagedCase{16, 256, false, DType::kF32},  // exact blocks
                      PagedCase{16, 1, true, DType::kF16},     // one row in one block
                      PagedCase{32, 100, true, DType::kBF16},
                      PagedCase{128, 129, true, DType::kI8},   // int8 scales through slots
                      PagedCase{128, 1000, false, DType::kF32},
                      PagedCase{64, 0, true, DType::kF32}));   // empty sequence: zeros

TEST(PagedWrite, SkipsAlreadyCachedSlotsAndRejectsBadOnes) {
  OwnedPool pool(paged_shape(8, 4, DType::kF32));
  ASSERT_EQ(pool.status(), Status::kOk);
  const std::int64_t e = 2 * 64;
  std::vector<float> k(static_cast<std::size_t>(3 * e), 1.0f), v(k.size(), 2.0f);
  const std::int64_t slots[] = {5, -1, 17};
  ASSERT_EQ(paged_write(pool.view(), 0, slots, 3, k.data(), v.data()), Status::kOk);
  const CacheGeometry& g = pool.geometry().slots();
  float x = 0;
  std::memcpy(&x, pool.bytes().data() + g.byte_offset(0, KV::kKey, 1, 5), sizeof(float));
  EXPECT_EQ(x, 1.0f);
  std::memcpy(&x, pool.bytes().data() + g.byte_offset(0, KV::kValue, 0, 17), sizeof(float));
  EXPECT_EQ(x, 2.0f);
  for (std::int64_t slot = 0; slot < 32; ++slot) {  // only slots 5 and 17 were written
    if (slot == 5 || slot == 17) continue;
    std::memcpy(&x, pool.bytes().data() + g.byte_offset(0, KV::kKey, 0, slot), sizeof(float));
    EXPECT_EQ(x, 0.0f) << "slot " << slot;
  }
  const std::vector<unsigned char> before = pool.bytes();
  const std::int64_t bad[] = {0, 32};  // 32 slots in the pool: 32 is one past the end
  EXPECT_EQ(paged_write(pool.view(), 0, bad, 2, k.data(), v.data()), Status::kOutOfRange);
  const std::int64_t negative[] = {-2};
  EXPECT_EQ(paged_write(pool.view(), 0, negative, 1, k.data(), v.data()), Status::kOutOfRange);
  EXPECT_EQ(pool.bytes(), before) << "a rejected mapping must write nothing";
  EXPECT_EQ(paged_write(pool.view(), 2, slots, 3, k.data(), v.data()), Status::kOutOfRange);
}

TEST(PagedGeometry, RejectsBadShapes) {
  PagedGeometry g;
  EXPECT_EQ(PagedGeometry::create(paged_shape(0, 4, DType::kF32), &g), Status::kInvalidShape);
  EXPECT_EQ(PagedGeometry::create(paged_shape(16, 0, DType::kF32), &g), Status::kInvalidShape);
  EXPECT_EQ(PagedGeometry::create(paged_shape(-8, 4, DType::kF32), &g), Status::kInvalidShape);
  PagedShape odd = paged_shape(16, 4, DType::kF32);
  odd.q_heads = 7;  // not a multiple of kv_heads
  EXPECT_EQ(PagedGeometry::create(odd, &g), Status::kInvalidShape);
  ASSERT_EQ(PagedGeometry::create(paged_shape(16, 4, DType::kF32), &g), Status::kOk);
  EXPECT_EQ(g.num_slots(), 64);
}

TEST(PagedAttention, RejectsBadTables) {
  OwnedPool pool(paged_shape(16, 4, DType::kF32));
  ASSERT_EQ(pool.status(), Status::kOk);
  const PagedShape& p = pool.geometry().shape();
  std::vector<float> q(static_cast<std::size_t>(p.q_heads) * p.head_dim, 0.5f), out(q.size());
  std::vector<float> ws(static_cast<std::size_t>(paged_attention_workspace_floats(p)));
  const std::int32_t good[] = {3, 1};
  const std::int32_t bad_id[] = {3, 4};  // block 4 does not exist
  EXPECT_EQ(paged_decode_attention(pool.view(), 0, {good, 2}, 32, q.data(), 1.0f, out.data(),
                                   ws.data()),
            Status::kOk);
  EXPECT_EQ(paged_decode_attention(pool.view(), 0, {good, 2}, 33, q.data(), 1.0f, out.data(),
                                   ws.data()),
            Status::kOutOfRange) << "table too short for the sequence";
  EXPECT_EQ(paged_decode_attention(pool.view(), 0, {bad_id, 2}, 20, q.data(), 1.0f, out.data(),
                                   ws.data()),
            Status::kOutOfRange);
  EXPECT_EQ(paged_decode_attention(pool.view(), 0, {nullptr, 2}, 20, q.data(), 1.0f, out.data(),
                                   ws.data()),
            Status::kNullArgument);
  EXPECT_EQ(paged_decode_attention(pool.view(), 0, {good, 2}, 20, q.data(), 1.0f, out.data(),
                                   nullptr),
            Status::kNullArgument);
  std::int64_t slots[4];
  EXPECT_EQ(slots_for_positions(pool.geometry(), {good, 2}, 30, 4, slots), Status::kOutOfRange);
  ASSERT_EQ(slots_for_positions(pool.geometry(), {good, 2}, 14, 4, slots), Status::kOk);
  EXPECT_EQ(slots[0], 3 * 16 + 14);
  EXPECT_EQ(slots[2], 1 * 16 + 0);
}

TEST(PagedAttention, ShuffledAssignmentIsAPermutation) {
  std::vector<std::int32_t> a(100), b(100);
  assign_blocks(100, true, 7, a.data());
  assign_blocks(100, false, 7, b.data());
  std::vector<std::int32_t> sorted = a;
  std::sort(sorted.begin(), sorted.end());
  EXPECT_EQ(sorted, b);
  EXPECT_NE(a, b);
}

// A ragged batch sharing one fragmented pool (block 16), cut into work items for 3 threads.
TEST(PagedAttention, BatchOverSharedPoolMatchesReference) {
  const std::vector<std::int64_t> lens = {50, 0, 130, 7};
  const auto B = static_cast<std::int32_t>(lens.size());
  const std::int32_t bs = 16;
  std::int64_t needed = 0;
  for (std::int64_t l : lens) needed += (l + bs - 1) / bs;
  OwnedPool pool(paged_shape(bs, needed + 3, DType::kF32));
  ASSERT_EQ(pool.status(), Status::kOk);
  const PagedShape& p = pool.geometry().shape();
  std::vector<std::int32_t> order(static_cast<std::size_t>(p.num_blocks));
  assign_blocks(p.num_blocks, true, 77, order.data());
  std::vector<BlockTable> tables;
  std::vector<std::unique_ptr<OwnedCache>> refs;
  std::mt19937 rng(12);
  std::int64_t next_block = 0;
  const std::int32_t layer = 1;
  for (std::int32_t b = 0; b < B; ++b) {
    const std::int64_t blocks = (lens[b] + bs - 1) / bs;
    tables.push_back({order.data() + next_block, blocks});
    next_block += blocks;
    refs.push_back(std::make_unique<OwnedCache>(
        testing::small_shape(p.q_heads, p.kv_heads, p.head_dim, std::max<std::int64_t>(lens[b], 1),
                             DType::kF32)));
    const auto rows = testing::random_tokens(lens[b], refs.back()->geometry().shape(), rng);
    testing::append_all(refs.back()->view(), layer, rows, lens[b]);
    std::vector<std::int64_t> slots(static_cast<std::size_t>(lens[b]));
    ASSERT_EQ(slots_for_positions(pool.geometry(), tables.back(), 0, lens[b], slots.data()), Status::kOk);
    ASSERT_EQ(paged_write(pool.view(), layer, slots.data(), lens[b], rows.k.data(), rows.v.data()),
              Status::kOk);
  }
  const CacheShape rs = refs[0]->geometry().shape();
  const std::size_t per_seq = static_cast<std::size_t>(p.q_heads) * p.head_dim;
  const auto q = testing::random_floats(B * per_seq, rng, -3.0f, 3.0f);
  const std::int32_t threads = 3;
  std::vector<BatchWorkItem> items(static_cast<std::size_t>(batch_work_items_bound(B, p.kv_heads, threads)));
  std::vector<std::int64_t> first(threads + 1);
  std::int64_t n = 0;
  ASSERT_EQ(plan_batch_work(lens.data(), B, p.kv_heads, threads, BatchSplit::kByRows, items.data(),
                            static_cast<std::int64_t>(items.size()), &n, first.data()),
            Status::kOk);
  const std::int64_t pf = attention_partial_floats(rs);
  std::vector<float> storage(static_cast<std::size_t>(n * pf)), scratch(static_cast<std::size_t>(pf));
  for (std::int64_t i = 0; i < n; ++i)
    ASSERT_EQ(paged_batch_item_attention(pool.view(), tables.data(), B, layer, items[i], q.data(),
                                         1.0f / std::sqrt(float(p.head_dim)),
                                         attention_partial_from(storage.data() + i * pf, rs),
                                         scratch.data()),
              Status::kOk);
  std::vector<float> out(B * per_seq, -7.0f);
  ASSERT_EQ(merge_batch_partials(rs, B, items.data(), n, storage.data(), out.data()), Status::kOk);
  for (std::int32_t b = 0; b < B; ++b) {
    const auto ref = testing::reference(refs[b]->view(), layer, lens[b], q.data() + b * per_seq);
    EXPECT_LE(testing::max_abs_diff(out, ref, b * per_seq), testing::kKernelTol) << "sequence " << b;
  }
  // All heads per item: plan with kv_heads = 1, partials of q_heads heads.
  {
    const CacheShape all = paged_all_heads_shape(p);
    std::vector<BatchWorkItem> ritems(static_cast<std::size_t>(batch_work_items_bound(B, 1, threads)));
    std::int64_t rn = 0;
    ASSERT_EQ(plan_batch_work(lens.data(), B, 1, threads, BatchSplit::kByRows, ritems.data(),
                              static_cast<std::int64_t>(ritems.size()), &rn, first.data()),
              Status::kOk);
    const std::int64_t apf = attention_partial_floats(all);
    std::vector<float> rstorage(static_cast<std::size_t>(rn * apf));
    for (std::int64_t i = 0; i < rn; ++i)
      ASSERT_EQ(paged_batch_range_attention(pool.view(), tables.data(), B, layer, ritems[i], q.data(),
                                            1.0f / std::sqrt(float(p.head_dim)),
                                            attention_partial_from(rstorage.data() + i * apf, all),
                                            scratch.data()),
                Status::kOk);
    std::vector<float> rout(B * per_seq, -7.0f);
    ASSERT_EQ(merge_batch_partials(all, B, ritems.data(), rn, rstorage.data(), rout.data()), Status::kOk);
    for (std::int32_t b = 0; b < B; ++b) {
      const auto ref = testing::reference(refs[b]->view(), layer, lens[b], q.data() + b * per_seq);
      EXPECT_LE(testing::max_abs_diff(rout, ref, b * per_seq), testing::kKernelTol) << "all heads, sequence " << b;
    }
    EXPECT_EQ(paged_batch_range_attention(pool.view(), tables.data(), B, layer, BatchWorkItem{0, 1, 0, 4},
                                          q.data(), 1.0f,
                                          attention_partial_from(rstorage.data(), all), scratch.data()),
              Status::kOutOfRange) << "range items have kv_head 0";
  }
  const AttentionPartial part = attention_partial_from(storage.data(), rs);
  EXPECT_EQ(paged_batch_item_attention(pool.view(), tables.data(), B, layer, BatchWorkItem{4, 0, 0, 1},
                                       q.data(), 1.0f, part, scratch.data()),
            Status::kOutOfRange);
  EXPECT_EQ(paged_batch_item_attention(pool.view(), tables.data(), B, layer, BatchWorkItem{0, 0, 0, 65},
                                       q.data(), 1.0f, part, scratch.data()),
            Status::kOutOfRange) << "past the sequence's table";
}

TEST(PagedAttention, CostCountsRowsOnceAndTheTable) {
  const PagedShape p = paged_shape(16, 8, DType::kF32);
  const Cost c = paged_attention_cost(p, 100);
  const Cost base = attention_cost(paged_row_shape(p), 100);
  EXPECT_EQ(c.bytes_read, base.bytes_read + 7 * 4);  // 7 table entries for 100 rows of 16
  EXPECT_EQ(c.flops, base.flops);
}

}  // namespace
}  // namespace kvb
