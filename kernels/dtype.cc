#include "kernels/dtype.h"

namespace kvb {

std::int32_t dtype_bits(DType t) noexcept {
  switch (t) {
    case DType::kF32: return 32;
    case DType::kF16: return 16;
    case DType::kBF16: return 16;
    case DType::kI8: return 8;
    case DType::kF8E4M3: return 8;
    case DType::kF8E5M2: return 8;
    case DType::kI4: return 4;
  }
  return 0;
}

std::int64_t dtype_row_bytes(DType t, std::int64_t elems) noexcept {
  return (elems * dtype_bits(t) + 7) / 8;
}

std::size_t dtype_bytes(DType t) noexcept {
  return static_cast<std::size_t>(dtype_bits(t) % 8 == 0 ? dtype_bits(t) / 8 : 0);
}

const char* dtype_name(DType t) noexcept {
  switch (t) {
    case DType::kF32: return "fp32";
    case DType::kF16: return "fp16";
    case DType::kBF16: return "bf16";
    case DType::kI8: return "int8";
    case DType::kF8E4M3: return "fp8_e4m3";
    case DType::kF8E5M2: return "fp8_e5m2";
    case DType::kI4: return "int4";
  }
  return "unknown";
}

bool parse_dtype(std::string_view name, DType* out) noexcept {
  for (DType t : kExtendedDTypes) {
    if (name == dtype_name(t)) {
      if (out != nullptr) *out = t;
      return true;
    }
  }
  return false;
}

bool dtype_has_row_scale(DType t) noexcept {
  return t == DType::kI8 || t == DType::kF8E4M3 || t == DType::kF8E5M2 || t == DType::kI4;
}

}  // namespace kvb
