#include "kernels/batched_attention.h"

#include <algorithm>

#include "kernels/partial_fold.h"

namespace kvb {

namespace {

bool same_shape(const CacheShape& a, const CacheShape& b) noexcept {
  return a.q_heads == b.q_heads && a.kv_heads == b.kv_heads && a.head_dim == b.head_dim &&
         a.dtype == b.dtype && a.layers == b.layers;
}

Status check_batch(const CacheView* seqs, std::int32_t batch) noexcept {
  if (batch <= 0) return Status::kInvalidShape;
  if (seqs == nullptr) return Status::kNullArgument;
  for (std::int32_t b = 0; b < batch; ++b)
    if (seqs[b].geometry == nullptr || seqs[b].data == nullptr) return Status::kNullArgument;
  for (std::int32_t b = 1; b < batch; ++b)
    if (!same_shape(seqs[b].geometry->shape(), seqs[0].geometry->shape()))
      return Status::kInvalidShape;
  return Status::kOk;
}

}  // namespace

std::int64_t batch_work_items_bound(std::int32_t batch, std::int32_t kv_heads,
                                    std::int32_t threads) noexcept {
  if (batch <= 0 || kv_heads <= 0 || threads <= 0) return 0;
  return std::int64_t{batch} * kv_heads + threads;
}

Status plan_batch_work(const std::int64_t* seq_lens, std::int32_t batch, std::int32_t kv_heads,
                       std::int32_t threads, BatchSplit split, BatchWorkItem* items,
                       std::int64_t capacity, std::int64_t* num_items,
                       std::int64_t* thread_first) noexcept {
  if (batch <= 0 || kv_heads <= 0 || threads <= 0) return Status::kInvalidShape;
  if (seq_lens == nullptr || items == nullptr || num_items == nullptr || thread_first == nullptr)
    return Status::kNullArgument;
  if (capacity < batch_work_items_bound(batch, kv_heads, threads))
    return Status::kWorkspaceTooSmall;
  std::int64_t total = 0;
  for (std::int32_t b = 0; b < batch; ++b) {
    if (seq_lens[b] < 0) return Status::kOutOfRange;
    total += seq_lens[b] * kv_heads;
  }

  std::int64_t n = 0;
  if (split == BatchSplit::kBySequence) {
    for (std::int32_t t = 0; t < threads; ++t) {
      thread_first[t] = n;
      const std::int32_t b0 = static_cast<std::int32_t>(std::int64_t{t} * batch / threads);
      const std::int32_t b1 = static_cast<std::int32_t>(std::int64_t{t + 1} * batch / threads);
      for (std::int32_t b = b0; b < b1; ++b)
        for (std::int32_t h = 0; h < kv_heads && seq_lens[b] > 0; ++h)
          items[n++] = BatchWorkItem{b, h, 0, seq_lens[b]};
    }
    thread_first[threads] = n;
    *num_items = n;
    return Status::kOk;
  }

  // kByRows: lay all (seq, kv_head) ranges end to end as one row sequence of `total` rows and
  // cut it at total * t / threads; each cut splits at most one range.
  std::int32_t t = 0;
  std::int64_t row = 0;  // global row index of the current range's start
  thread_first[0] = 0;
  for (std::int32_t b = 0; b < batch; ++b) {
    for (std::int32_t h = 0; h < kv_heads; ++h) {
      const std::int64_t len = seq_lens[b];
      std::int64_t p = 0;
      while (p < len) {
        // Close threads whose share ends at or before this point.
        while (t + 1 < threads && total * (t + 1) / threads <= row + p) thread_first[++t] = n;
        const std::int64_t end_row =
            t + 1 < threads ? total * (t + 1) / threads : total;  // this thread's last row + 1
        const std::int64_t take = std::min(len - p, end_row - (row + p));
        items[n++] = BatchWorkItem{b, h, p, p + take};
        p += take;
      }
      row += len;
    }
  }
  while (t + 1 <= threads - 1) thread_first[++t] = n;
  thread_first[threads] = n;
  *num_items = n;
  return Status::kOk;
}

Status batch_item_attention(const CacheView* seqs, std::int32_t batch, std::int32_t layer,
                            const BatchWorkItem& item, const float* q, float scale,
                            AttentionPartial out) noexcept {
  if (Status st = check_batch(seqs, batch); !ok(st)) return st;
  if (q == nullptr) return Status::kNullArgument;
  if (item.seq < 0 || item.seq >= batch) return Status::kOutOfRange;
  const CacheView& c = seqs[item.seq];
  const CacheShape& s = c.geometry->shape();
  if (item.kv_head < 0 || item.kv_head >= s.kv_heads) return Status::kOutOfRange;
  const std::int32_t G = c.geometry->group_size();
  const float* qs = q + (std::int64_t{item.seq} * s.q_heads + std::int64_t{item.kv_head} * G) *
                            s.head_dim;
  return attention_partial(c, layer, item.kv_head, item.t0, item.t1, qs, scale, out);
}

Status merge_batch_partials(const CacheShape& s, std::int32_t batch, const BatchWorkItem* items,
                            std::int64_t num_items, float* storage, float* out) noexcept {
  if (batch <= 0 || s.kv_heads <= 0 || s.head_dim <= 0 || s.q_heads % s.kv_heads != 0)
    return Status::kInvalidShape;
  if (out == nullptr || (num_items > 0 && (items == nullptr || storage == nullptr)))
    return Status::kNullArgument;
  const std::int32_t G = s.q_heads / s.kv_heads;
  const std::int32_t d = s.head_dim;
  const std::int64_t pf = attention_partial_floats(s);
  std::fill(out, out + std::int64_t{batch} * s.q_heads * d, 0.0f);
  for (std::int64_t i = 0; i < num_items;) {
    const BatchWorkItem& first = items[i];
    if (first.seq < 0 || first.seq >= batch || first.kv_head < 0 || first.kv_head >= s.kv_heads)
      return Status::kOutOfRange;
    const AttentionPartial into = attention_partial_from(storage + i * pf, s);
    std::int64_t j = i + 1;
    for (; j < num_items && items[j].seq == first.seq && items[j].kv_head == first.kv_head; ++j)
      fold_partial(G, d, attention_partial_from(storage + j * pf, s), into);
    normalise_partial(G, d, into,
                      out + (std::int64_t{first.seq} * s.q_heads + std::int64_t{first.kv_head} * G) * d);
    i = j;
  }
  return Status::kOk;
}

Status batched_decode_attention(const CacheView* seqs, std::int32_t batch, std::int32_t layer,
                                const std::int64_t* seq_lens, const float* q, float scale,
                                float* out, float* workspace) noexcept {
  if (Status st = check_batch(seqs, batch); !ok(st)) return st;
  if (seq_lens == nullptr || q == nullptr || out == nullptr) return Status::kNullArgument;
  const CacheShape& s = seqs[0].geometry->shape();
  const std::int64_t per_seq = std::int64_t{s.q_heads} * s.head_dim;
  for (std::int32_t b = 0; b < batch; ++b) {
    if (Status st = decode_attention(seqs[b], layer, seq_lens[b], q + b * per_seq, scale,
                                     out + b * per_seq, workspace);
        !ok(st))
      return st;
  }
  return Status::kOk;
}

}  // namespace kvb
