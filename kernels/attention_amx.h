// AMX-INT8 scores for int8 decode attention (kernels/attention_amx.cc): the K rows of a tile of
// 16 positions times the query's exact int8 limbs (kernels/query_limbs.h), three TDPBSSD per
// 64 dims. Internal to the kernels; attention.cc decides per call whether to use it.
#pragma once
#include <cstdint>

#include "kernels/query_limbs.h"

namespace kvb::detail {

// Per call (one pass of <= 16 heads): the query's limbs and the tile configuration, on the
// caller's stack.
struct AmxInt8Scorer {
  QueryLimbs limbs;
  float head_factor[kLimbTileHeads];  // scale * u_g
  alignas(64) std::uint8_t tile_config[64];
  bool emulated = false;  // tiles modelled by AmxTileEmulator (tests), not the hardware's
};

// CPU has AMX-TILE and AMX-INT8, the OS enabled tile state (XCR0) and Linux granted this process
// tile data (arch_prctl ARCH_REQ_XCOMP_PERM). Checked once per process.
bool amx_int8_supported() noexcept;
// Whether int8 attention uses AMX where the shape allows: supported, and switched on. The switch
// is KVBENCH_AMX (0 off, 1 on; unset: kAmxInt8ByDefault), read once.
bool amx_int8_enabled() noexcept;
// Overrides the switch for the rest of the process (tests, A/B runs); returns the resulting
// state, which is false where AMX is not supported.
bool set_amx_int8_enabled(bool on) noexcept;
// Tests: run the AMX path's data flow on AmxTileEmulator instead of the hardware (any CPU), or
// back to off. amx_int8_enabled() stays false while emulating.
void set_amx_int8_emulated(bool on) noexcept;

// Quantises q ([heads][head_dim]) into s.limbs, sets the score factors and loads the tile
// configuration on the calling thread. False (nothing loaded) if AMX is off, the shape does not
// fit query_limbs_fit(), or q is not finite: the caller then uses the FMA path. Every true
// return must be followed by amx_int8_end(s) on the same thread.
bool amx_int8_begin(AmxInt8Scorer& s, const float* q, std::int32_t heads, std::int32_t head_dim,
                    float scale) noexcept;
void amx_int8_end(const AmxInt8Scorer& s) noexcept;  // releases the tile state

// s_out[g * 16 + r] = scale * kscale[r] * (q_g . k_r) for r < rows (<= 16) and g < heads, where
// k_r = k + r * stride_bytes (head_dim int8 each).
void amx_int8_score_tile(const AmxInt8Scorer& s, const std::int8_t* k, std::int64_t stride_bytes,
                         std::int64_t rows, const float* kscale, float* s_out) noexcept;

}  // namespace kvb::detail
