#include "kernels/dtype.h"

namespace kvb {

std::size_t dtype_bytes(DType t) noexcept {
  switch (t) {
    case DType::kF32: return 4;
    case DType::kF16: return 2;
    case DType::kBF16: return 2;
    case DType::kI8: return 1;
  }
  return 0;
}

const char* dtype_name(DType t) noexcept {
  switch (t) {
    case DType::kF32: return "fp32";
    case DType::kF16: return "fp16";
    case DType::kBF16: return "bf16";
    case DType::kI8: return "int8";
  }
  return "unknown";
}

bool parse_dtype(std::string_view name, DType* out) noexcept {
  for (DType t : kAllDTypes) {
    if (name == dtype_name(t)) {
      if (out != nullptr) *out = t;
      return true;
    }
  }
  return false;
}

bool dtype_has_row_scale(DType t) noexcept { return t == DType::kI8; }

}  // namespace kvb
