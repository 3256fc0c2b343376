// The int8 attention kernel's V side with AVX512-VNNI's VPDPBUSD (kernels/attention_vnni.cc), for
// kernels/attention.cc where the CPU has it and the switch is on: Highway 1.0.3 dispatches the
// CPUs we measure to AVX3, which has no VNNI. Internal to the kernels.
#pragma once
#include <cstdint>

namespace kvb::detail {

// CPU and OS support AVX512F, AVX512BW and AVX512-VNNI. Checked once per process.
bool vnni_values_supported() noexcept;
// Whether int8 V rows take it: supported, and switched on. The switch is the environment variable
// KVBENCH_VNNI (0 off, anything else on; unset: off until measured faster), read once.
bool vnni_values_enabled() noexcept;
// Overrides the switch for the rest of the process (tests, kvbench ab); returns the resulting
// state, false where the CPU lacks the instruction.
bool set_vnni_values_enabled(bool on) noexcept;

// acc[h * d + j] += sum over rows r of w[h * w_stride + r] * v[r * stride + j], for heads h < heads
// and the first rows - rows % 4 rows, exactly as fp32 FMAs would within fp32 rounding: each weight
// becomes a 24-bit fixed-point number against `bound` (at least every weight; weights must lie in
// [0, bound]), written as three uint8 limbs, and VPDPBUSD adds four rows' limbs times their int8
// codes at once; int32 sums are exact over each block of 32 rows, which then joins the fp32
// accumulators. Rows are `stride` bytes apart; d must be a multiple of 64 (the attention kernel
// calls it for head_dim 64 and 128, whose rows take the joint prefetch window). Returns the rows done: 0
// (nothing touched) where vnni_values_enabled() is false, d % 64 != 0 or bound is not a positive
// normal number.
std::int64_t vnni_int8_accumulate(const std::int8_t* v, std::int64_t stride, std::int64_t rows,
                                  std::int32_t d, const float* w, std::int64_t w_stride,
                                  std::int32_t heads, float bound, float* acc) noexcept;

}  // namespace kvb::detail
