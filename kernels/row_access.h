// Scalar access to one cache row: decode element j of a row in any dtype (the codecs' definition).
// Shared by the scalar baseline, the double reference and the tests; internal to kernels/.
#pragma once
#include <cstdint>
#include <cstring>

#include "kernels/cache_geometry.h"
#include "kernels/codecs.h"
#include "kernels/dtype.h"
#include "kernels/status.h"

namespace kvb {

// Element j of the row starting at `row` (untyped cache memory), decoded to fp32 without the
// row scale of int8/fp8/int4 (multiply by the scale separately).
inline float decode_element(const void* row, DType dtype, std::int64_t j) noexcept {
  switch (dtype) {
    case DType::kF32: return static_cast<const float*>(row)[j];
    case DType::kF16: return f16_to_f32(static_cast<const std::uint16_t*>(row)[j]);
    case DType::kBF16: return bf16_to_f32(static_cast<const std::uint16_t*>(row)[j]);
    case DType::kI8: return static_cast<float>(static_cast<const std::int8_t*>(row)[j]);
    case DType::kF8E4M3: return fp8_e4m3_to_f32(static_cast<const std::uint8_t*>(row)[j]);
    case DType::kF8E5M2: return fp8_e5m2_to_f32(static_cast<const std::uint8_t*>(row)[j]);
    case DType::kI4:
      return static_cast<float>(int4_unpack(static_cast<const std::uint8_t*>(row), j));
  }
  return 0.0f;
}

// Argument checks shared by the scalar decode-attention kernels (baseline and reference):
// non-null cache, query and output, row scales when the dtype needs them, layer and context in range.
inline Status check_decode_arguments(const CacheView& cache, std::int32_t layer, std::int64_t context,
                                     const void* q, const void* out) noexcept {
  if (cache.geometry == nullptr || cache.data == nullptr || q == nullptr || out == nullptr)
    return Status::kNullArgument;
  const CacheShape& s = cache.geometry->shape();
  if (dtype_has_row_scale(s.dtype) && cache.scales == nullptr) return Status::kNullArgument;
  if (layer < 0 || layer >= s.layers) return Status::kOutOfRange;
  if (context < 0 || context > s.capacity) return Status::kOutOfRange;
  return Status::kOk;
}

}  // namespace kvb
