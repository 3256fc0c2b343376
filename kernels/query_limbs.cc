#include "kernels/query_limbs.h"

#include <cmath>
#include <cstring>

namespace kvb {
namespace {

constexpr double kLimbRange = 4194304.0;  // 2^22

// Balanced base-256 digit: (x + 128) mod 256 - 128, in [-128, 127].
std::int32_t low_digit(std::int32_t x) { return ((x + 128) & 255) - 128; }

std::int8_t* limb_byte(QueryLimbs& l, int limb, std::int32_t head, std::int32_t dim) {
  const std::int32_t chunk = dim / kLimbChunkDims;
  const std::int32_t within = dim % kLimbChunkDims;
  return &l.tiles[limb][chunk][(within / 4) * 64 + head * 4 + within % 4];
}

}  // namespace

bool query_limbs_fit(std::int32_t heads, std::int32_t head_dim) noexcept {
  return heads >= 1 && heads <= kLimbTileHeads && head_dim > 0 &&
         head_dim % kLimbChunkDims == 0 && head_dim / kLimbChunkDims <= kLimbMaxChunks;
}

bool quantise_query_limbs(const float* q, std::int32_t heads, std::int32_t head_dim,
                          QueryLimbs& out) noexcept {
  if (q == nullptr || !query_limbs_fit(heads, head_dim)) return false;
  out.heads = heads;
  out.chunks = head_dim / kLimbChunkDims;
  std::memset(out.tiles, 0, sizeof(out.tiles));
  for (std::int32_t g = 0; g < kLimbTileHeads; ++g) out.unit[g] = 0.0;
  for (std::int32_t g = 0; g < heads; ++g) {
    const float* qg = q + std::int64_t{g} * head_dim;
    float m = 0.0f;
    for (std::int32_t i = 0; i < head_dim; ++i) {
      if (!std::isfinite(qg[i])) return false;
      m = std::fmax(m, std::fabs(qg[i]));
    }
    if (m == 0.0f) continue;  // all limbs 0, unit 0: scores 0 like the fp32 path's
    // Double keeps u exact even when m is subnormal; q_i / u is then exact up to the rounding.
    const double u = static_cast<double>(m) / kLimbRange;
    out.unit[g] = u;
    for (std::int32_t i = 0; i < head_dim; ++i) {
      double r = std::nearbyint(static_cast<double>(qg[i]) / u);
      r = std::fmin(std::fmax(r, -kLimbRange), kLimbRange);
      const auto Q = static_cast<std::int32_t>(r);
      const std::int32_t l0 = low_digit(Q);
      const std::int32_t q1 = (Q - l0) / 256;  // exact division
      const std::int32_t l1 = low_digit(q1);
      const std::int32_t l2 = (q1 - l1) / 256;  // |Q| <= 2^22 -> l2 in [-64, 64]
      *limb_byte(out, 0, g, i) = static_cast<std::int8_t>(l0);
      *limb_byte(out, 1, g, i) = static_cast<std::int8_t>(l1);
      *limb_byte(out, 2, g, i) = static_cast<std::int8_t>(l2);
    }
  }
  return true;
}

std::int8_t query_limb(const QueryLimbs& limbs, int limb, std::int32_t head,
                       std::int32_t dim) noexcept {
  return *limb_byte(const_cast<QueryLimbs&>(limbs), limb, head, dim);
}

}  // namespace kvb
