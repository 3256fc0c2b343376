// Internal: SIMD encoding of fp32 rows into the cache dtype (Highway runtime dispatch), bit-for-bit
// the scalar codecs of kernels/codecs.h. Used by kernels/cache_write.cc.
#pragma once
#include <cstdint>

#include "kernels/dtype.h"

namespace kvb {

// Encodes `rows` rows of `head_dim` fp32 values (source rows `src_stride` floats apart) into the
// cache dtype at `dst` (destination rows `dst_stride` elements apart; even for int4). Dtypes with
// a row scale store it at scales[r] (scales must then be non-null). With `stream`, vector-aligned
// chunks are written with non-temporal stores (bypassing the caches) and the stores are fenced
// at the end. fp8 and int4 ignore `stream` (their writes are small: 1/4 and
// 1/8 of the fp32 row).
void encode_rows(const float* src, std::int64_t src_stride, void* dst, std::int64_t dst_stride,
                 std::int64_t rows, std::int32_t head_dim, DType dtype, float* scales,
                 bool stream) noexcept;

}  // namespace kvb
