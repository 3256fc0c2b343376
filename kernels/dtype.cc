#include "kernels/dtype.h"

namespace kvb {

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

}  // namespace kvb
