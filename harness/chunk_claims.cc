#include "harness/chunk_claims.h"

#include <string>
#include <utility>

#include "harness/error.h"

namespace kvb {

ChunkClaims::ChunkClaims(std::vector<std::int64_t> block_begin) : begin_(std::move(block_begin)) {
  if (begin_.size() < 2 || begin_.front() != 0)
    throw HarnessError("chunk claims need at least one worker's block, starting at chunk 0");
  for (std::size_t i = 1; i < begin_.size(); ++i)
    if (begin_[i] < begin_[i - 1])
      throw HarnessError("chunk claims: block " + std::to_string(i - 1) + " ends before it begins");
  next_ = std::make_unique<Counter[]>(begin_.size() - 1);
}

ChunkClaims ChunkClaims::even(std::int64_t chunks, int workers) {
  if (workers < 1 || chunks < 0)
    throw HarnessError("chunk claims: " + std::to_string(chunks) + " chunks over " + std::to_string(workers) +
                       " workers");
  std::vector<std::int64_t> begin;
  for (int w = 0; w <= workers; ++w) begin.push_back(chunks * w / workers);
  return ChunkClaims(std::move(begin));
}

}  // namespace kvb
