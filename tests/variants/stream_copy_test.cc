#include "kernels/stream_copy.h"

#include <cstdint>
#include <cstring>
#include <vector>

#include "gtest/gtest.h"

namespace kvb {
namespace {

// Every direction, overlap and misalignment against std::memmove on a copy of the buffer.
TEST(MoveBytes, MatchesMemmoveIncludingOverlap) {
  std::vector<std::uint8_t> base(4096);
  for (std::size_t i = 0; i < base.size(); ++i) base[i] = static_cast<std::uint8_t>(i * 37 + 11);
  for (bool stream : {false, true})
    for (std::int64_t src_off : {0, 1, 63, 64, 700})
      for (std::int64_t dst_off : {0, 3, 64, 65, 130, 701, 1500})
        for (std::int64_t bytes : {0, 1, 63, 64, 65, 129, 1000, 2047}) {
          std::vector<std::uint8_t> got = base, want = base;
          move_bytes(got.data() + dst_off, got.data() + src_off, bytes, stream);
          if (stream) stream_fence();
          std::memmove(want.data() + dst_off, want.data() + src_off, static_cast<std::size_t>(bytes));
          ASSERT_EQ(got, want) << "stream " << stream << " src+" << src_off << " dst+" << dst_off
                               << " bytes " << bytes;
        }
}

}  // namespace
}  // namespace kvb
