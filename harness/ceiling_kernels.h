// Bandwidth and FMA loops behind the ceilings (Highway runtime dispatch, several independent
// accumulators, unrolled). Sizes are in floats and must be multiples of ceiling_block_floats().
#pragma once
#include <cstdint>

namespace kvb {

std::int64_t ceiling_block_floats();  // 4 vectors x widest lane count supported (<= 64)
// Returns a sum so the compiler cannot drop the loads.
float ceiling_read(const float* p, std::int64_t n);
void ceiling_write(float* p, std::int64_t n, float value);
void ceiling_write_nt(float* p, std::int64_t n, float value);  // non-temporal (streaming) stores
void ceiling_copy(const float* src, float* dst, std::int64_t n);
// `rounds` x 12 independent vector FMAs (register-only); returns the flops done.
std::int64_t ceiling_fma(std::int64_t rounds, float* sink);
const char* ceiling_target_name();

}  // namespace kvb
