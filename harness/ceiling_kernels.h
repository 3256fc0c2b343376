// Bandwidth and FMA loops behind the ceilings (Highway runtime dispatch, several independent
// accumulators, unrolled). Sizes are in floats and must be multiples of ceiling_block_floats().
#pragma once
#include <cstdint>

namespace kvb {

std::int64_t ceiling_block_floats();  // 8 vectors x the dispatched target's lanes
// Returns a sum so the compiler cannot drop the loads.
float ceiling_read(const float* p, std::int64_t n);
void ceiling_write(float* p, std::int64_t n, float value);
void ceiling_write_nt(float* p, std::int64_t n, float value);  // non-temporal (streaming) stores
void ceiling_copy(const float* src, float* dst, std::int64_t n);
// ceiling_read with `fmas` vector FMAs on every vector it reads (chain = chain * 0.5 + v, on
// eight chains, each of which settles at 2 x its vectors' value), and, with prefetch_bytes > 0,
// a PREFETCHT0 (with prefetch_t2: PREFETCHT2) of every line that far ahead: how much of a core's
// read bandwidth survives a given amount of arithmetic per byte, and what a software window gives
// back (kernel_bench's overlap/ rows; the read ceiling's second loop). Returns the sum of the
// elements plus the eight chains' lanes; fmas must be one of ceiling_read_fma_counts
// (HarnessError otherwise).
inline constexpr int ceiling_read_fma_counts[] = {0, 2, 4, 8, 12, 16, 24};
float ceiling_read_fma(const float* p, std::int64_t n, int fmas, std::int64_t prefetch_bytes,
                       bool prefetch_t2 = false);
// ceiling_read over `streams` ranges at once, range s being p + s * stride up to n floats: a block
// of ceiling_block_floats() from each in turn (the attention kernels read a tile of K rows, then
// its V rows), with the window of ceiling_read_fma where prefetch_bytes > 0. Whether one core
// reads more from several streams than from one (kernel_bench's read_streams/ rows). Returns the
// sum of all; streams must be one of ceiling_read_stream_counts (HarnessError otherwise).
inline constexpr int ceiling_read_stream_counts[] = {1, 2, 4};
float ceiling_read_streams(const float* p, std::int64_t stride, int streams, std::int64_t n,
                           std::int64_t prefetch_bytes, bool prefetch_t2 = false);
// `rounds` x 12 independent vector FMAs (register-only); returns the flops done.
std::int64_t ceiling_fma(std::int64_t rounds, float* sink);
const char* ceiling_target_name();

}  // namespace kvb
