// Element types the KV cache can be stored in. Encoding happens on cache write; decoding
// happens in registers inside attention (kernels/codecs.h for the scalar definitions).
//
// Row sizes go through dtype_row_bytes(): int4 packs two elements per byte, so "bytes per
// element" is not an integer for every dtype.
#pragma once
#include <cstddef>
#include <cstdint>
#include <string_view>

namespace kvb {

enum class DType : std::uint8_t {
  kF32,     // IEEE binary32
  kF16,     // IEEE binary16, round to nearest even
  kBF16,    // bfloat16, round to nearest even
  kI8,      // symmetric int8, one fp32 scale per (layer, K|V, kv_head, position) row
  kF8E4M3,  // OCP FP8 E4M3 (max 448, no inf), one fp32 scale per row (max|x| / 448)
  kF8E5M2,  // OCP FP8 E5M2 (max 57344, IEEE-like inf/NaN), one fp32 scale per row (max|x| / 57344)
  kI4,      // symmetric int4 in [-7, 7], two per byte (even element in the low nibble), one
            // fp32 scale per row (max|x| / 7); head_dim must be even
};

// The four core dtypes: what default sweeps cover.
inline constexpr DType kAllDTypes[] = {DType::kF32, DType::kF16, DType::kBF16, DType::kI8};
// Every dtype, the low-precision ones included.
inline constexpr DType kExtendedDTypes[] = {DType::kF32,    DType::kF16,    DType::kBF16, DType::kI8,
                                            DType::kF8E4M3, DType::kF8E5M2, DType::kI4};

// Inline (with dtype_row_bytes and dtype_has_row_scale, and CacheGeometry's offsets): the
// cache-write and attention entry points compute offsets with them on every call, and a
// one-KV-head append is a few such calls around two rows per layer. Out of line they cost that
// append (32 layers, Zen 5 guest, 1 thread, 7 alternating rounds over two batches) 1.15-1.18x
// the time for fp32 and 1.32-1.35x for int8. On the EMR host, where that append waits on its
// stores (4-5 us against 1 us), out of line took 0.87x for fp32 (median of 5 rounds, 4 of them
// faster) and 1.08x for int8 at 1 thread, 1.00x and 1.03x at 16: kept for the Zen 5's gain.
constexpr std::int32_t dtype_bits(DType t) noexcept {  // bits per element: 32, 16, 16, 8, 8, 8, 4
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
// Bytes of `elems` consecutive elements (rounded up to whole bytes for int4). Use this, not
// elems * dtype_bytes(), for every row or array size.
constexpr std::int64_t dtype_row_bytes(DType t, std::int64_t elems) noexcept {
  return (elems * dtype_bits(t) + 7) / 8;
}
// Bytes per element of the byte-addressable dtypes; 0 for int4 (sub-byte: use dtype_row_bytes).
std::size_t dtype_bytes(DType t) noexcept;
// "fp32", "fp16", "bf16", "int8", "fp8_e4m3", "fp8_e5m2", "int4"
const char* dtype_name(DType t) noexcept;
bool parse_dtype(std::string_view name, DType* out) noexcept;  // accepts every name above
constexpr bool dtype_has_row_scale(DType t) noexcept {  // int8, fp8_e4m3, fp8_e5m2, int4
  return t == DType::kI8 || t == DType::kF8E4M3 || t == DType::kF8E5M2 || t == DType::kI4;
}

}  // namespace kvb
