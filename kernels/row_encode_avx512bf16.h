// fp32 rows to bf16 with AVX512-BF16's VCVTNE2PS2BF16 (kernels/row_encode_avx512bf16.cc), for
// the AVX-512 bf16 row encoder of kernels/row_encode.cc where the CPU has it: Highway 1.0.3 has
// no target with that instruction. Internal to the kernels.
#pragma once
#include <cstdint>

namespace kvb::detail {

// CPU and OS support AVX512F, AVX512DQ, AVX512BW and AVX512-BF16. Checked once per process.
bool avx512_bf16_supported() noexcept;
// Whether the bf16 encoder uses it: supported, and switched on. The switch is the environment
// variable KVBENCH_AVX512_BF16 (0 off, anything else on; unset: on), read once.
bool avx512_bf16_enabled() noexcept;
// Overrides the switch for the rest of the process (tests); returns the resulting state, false
// where the CPU lacks the instruction.
bool set_avx512_bf16_enabled(bool on) noexcept;

// Rows of encode_bf16_rows_avx512 calls it serves: 2 to 31 (one-row calls and bulk prefill rows
// measured faster with the integer rounding; kernels/row_encode_avx512bf16.cc); a token's rows of
// 1 to 31 KV heads through encode_bf16_token_avx512.
inline constexpr std::int64_t kMinRows = 2;
inline constexpr std::int64_t kMaxRows = 31;

// Encodes elements [0, d - d % 32) of each of `rows` rows (source rows src_stride floats apart,
// destination rows dst_stride elements apart) into bf16 bits, bit for bit f32_to_bf16: the
// instruction rounds to nearest even and makes NaNs quiet as f32_to_bf16 does, but reads
// subnormal inputs as zero, so pairs holding one are written again by f32_to_bf16. Cached stores,
// or with `stream` non-temporal ones for rows that start on a 64-byte line (the caller fences
// before the rows are read). Returns the number of elements done per row: d - d % 32, or 0
// (nothing written) when avx512_bf16_enabled() is false or rows is outside [kMinRows, kMaxRows].
std::int32_t encode_bf16_rows_avx512(const float* src, std::int64_t src_stride, std::uint16_t* dst,
                                     std::int64_t dst_stride, std::int64_t rows, std::int32_t d,
                                     bool stream) noexcept;

// One token's rows (an append): `rows` rows of K (k_src to k_dst) and of V (v_src to v_dst), source
// rows d floats apart, destination rows dst_stride elements apart, as encode_bf16_rows_avx512
// encodes them but with one check for both: so one KV head's two rows make one call. Returns
// d - d % 32, or 0 (nothing written) when disabled or rows is outside [1, kMaxRows].
std::int32_t encode_bf16_token_avx512(const float* k_src, std::uint16_t* k_dst, const float* v_src,
                                      std::uint16_t* v_dst, std::int64_t dst_stride, std::int64_t rows,
                                      std::int32_t d, bool stream) noexcept;

}  // namespace kvb::detail
