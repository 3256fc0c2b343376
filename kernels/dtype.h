// Element types the KV cache can be stored in. Encoding happens on cache write; decoding
// happens in registers inside attention (kernels/codecs.h for the scalar definitions).
#pragma once
#include <cstddef>
#include <cstdint>
#include <string_view>

namespace kvb {

enum class DType : std::uint8_t {
  kF32,   // IEEE binary32
  kF16,   // IEEE binary16, round to nearest even
  kBF16,  // bfloat16, round to nearest even
  kI8,    // symmetric int8, one fp32 scale per (layer, K|V, kv_head, position) row
};

inline constexpr DType kAllDTypes[] = {DType::kF32, DType::kF16, DType::kBF16, DType::kI8};

std::size_t dtype_bytes(DType t) noexcept;     // bytes per element of the data array
const char* dtype_name(DType t) noexcept;      // "fp32", "fp16", "bf16", "int8"
bool parse_dtype(std::string_view name, DType* out) noexcept;  // accepts the names above
bool dtype_has_row_scale(DType t) noexcept;    // true for int8

}  // namespace kvb
