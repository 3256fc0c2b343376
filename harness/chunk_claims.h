// Chunks shared out locality first: worker w owns the contiguous block of chunk indices
// [begin(w), begin(w + 1)) and claims them in order from its own counter; a worker whose block
// is done claims what is left of the others' blocks, in turn from the next worker on. Balanced
// workers read exactly their own blocks (what a static partition gives them); one that the host
// slows down ends up with fewer chunks instead of holding the others up at the end. Used by the
// parallel decode (harness/parallel_decode) and, so that both are timed the same way, by the
// read ceiling of shared levels (harness/ceilings).
#pragma once
#include <atomic>
#include <cstdint>
#include <memory>
#include <vector>

namespace kvb {

class ChunkClaims {
 public:
  ChunkClaims() = default;
  // `block_begin`: workers + 1 ascending chunk indices, block_begin[0] = 0.
  explicit ChunkClaims(std::vector<std::int64_t> block_begin);
  // Worker w < workers of `chunks` chunks: block w is [chunks * w / workers, chunks * (w + 1) / workers).
  static ChunkClaims even(std::int64_t chunks, int workers);

  int workers() const noexcept { return static_cast<int>(begin_.size()) - 1; }
  std::int64_t chunks() const noexcept { return begin_.empty() ? 0 : begin_.back(); }
  std::int64_t block_begin(int w) const noexcept { return begin_[static_cast<std::size_t>(w)]; }

  // Unclaims every chunk of worker w's block. Claims made after it must be ordered after it (a
  // pool dispatch or a barrier between them does that).
  void reset(int w) noexcept { next_[w].next.store(0, std::memory_order_relaxed); }
  void reset_all() noexcept {
    for (int w = 0; w < workers(); ++w) reset(w);
  }

  // Calls f(chunk) for each chunk that worker w claims: its own block in order, then the
  // others'. Every chunk is claimed by exactly one worker between two resets.
  template <class F>
  void claim(int w, F&& f) noexcept {
    const int T = workers();
    for (int i = 0; i < T; ++i) {
      const int v = (w + i) % T;
      const std::int64_t begin = begin_[static_cast<std::size_t>(v)];
      const std::int64_t n = begin_[static_cast<std::size_t>(v) + 1] - begin;
      std::atomic<std::int64_t>& next = next_[v].next;
      if (i > 0 && next.load(std::memory_order_relaxed) >= n) continue;  // done: no write to its line
      for (std::int64_t c = next.fetch_add(1, std::memory_order_relaxed); c < n;
           c = next.fetch_add(1, std::memory_order_relaxed))
        f(begin + c);
    }
  }

 private:
  struct alignas(64) Counter {  // one line each: workers claim from their own without sharing
    std::atomic<std::int64_t> next{0};
  };
  std::vector<std::int64_t> begin_;
  std::unique_ptr<Counter[]> next_;
};

}  // namespace kvb
