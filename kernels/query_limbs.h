// Exact int8 form of an fp32 query for integer dot products (AMX-INT8): per head g, with
// m = max_i |q_g[i]| and unit u_g = m / 2^22, Q_i = nearbyint(q_i / u_g) (|Q| <= 2^22; the error,
// at most m * 2^-23, is fp32's own rounding of the largest element) is split exactly into three
// balanced signed int8 limbs Q = L2 * 65536 + L1 * 256 + L0 (L0, L1 in [-128, 127], L2 in
// [-64, 64]). Against an int8 row k: q_g . k = u_g * (S2 * 65536 + S1 * 256 + S0) with
// S_l = sum_i L_l[i] * k[i] exact int32 sums (|S_l| <= 128 * 128 * head_dim, exact in fp32 too
// for head_dim <= 1024).
//
// The limbs are stored the way AMX's TDPBSSD takes its second operand (B): per 64-dimension
// chunk one 16 x 64-byte tile whose row i holds dims 4i..4i+3 of every head, head n in bytes
// 4n..4n+3 (the "VNNI" layout [d / 4][head][4]). Portable code: the AMX kernel loads these tiles,
// and tests check the layout with a plain emulation of TDPBSSD.
#pragma once
#include <cstdint>

namespace kvb {

inline constexpr int kQueryLimbs = 3;
inline constexpr int kLimbTileHeads = 16;    // columns of a B tile (16 x 4 bytes)
inline constexpr int kLimbChunkDims = 64;    // dims per tile (16 rows x 4 bytes)
inline constexpr int kLimbMaxChunks = 4;     // head_dim <= 256 (bounds the on-stack tiles)
inline constexpr int kLimbTileBytes = 16 * 64;

struct QueryLimbs {
  // tiles[limb][chunk]: one B tile each; bytes of heads >= `heads` are zero.
  alignas(64) std::int8_t tiles[kQueryLimbs][kLimbMaxChunks][kLimbTileBytes];
  double unit[kLimbTileHeads];  // u_g (0 for an all-zero head); double: exact for subnormal m
  std::int32_t heads = 0;
  std::int32_t chunks = 0;     // head_dim / 64
};

// True if quantise_query_limbs() accepts this shape: heads in [1, 16], head_dim a positive
// multiple of 64 up to 256.
bool query_limbs_fit(std::int32_t heads, std::int32_t head_dim) noexcept;

// Fills `out` from q ([heads][head_dim] fp32). Returns false (out unspecified) if the shape does
// not fit or q holds a non-finite value: callers then use the fp32 path.
bool quantise_query_limbs(const float* q, std::int32_t heads, std::int32_t head_dim,
                          QueryLimbs& out) noexcept;

// Limb `limb` of element `dim` of head `head`, read back from the tile layout.
std::int8_t query_limb(const QueryLimbs& limbs, int limb, std::int32_t head,
                       std::int32_t dim) noexcept;

// q_g . k / u_g from the three exact limb sums, rounded as fp32 arithmetic rounds.
inline float combine_limb_sums(std::int32_t s2, std::int32_t s1, std::int32_t s0) noexcept {
  return static_cast<float>(s2) * 65536.0f + static_cast<float>(s1) * 256.0f +
         static_cast<float>(s0);
}

}  // namespace kvb
