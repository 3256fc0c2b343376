#include "kernels/amx_tile_emulator.h"

#include <cstring>

namespace kvb {

void AmxTileEmulator::load_config(const std::uint8_t* config) {
  std::memset(data_, 0, sizeof(data_));
  configured_ = config[0] == 1;
  if (!configured_) {
    faulted_ = true;
    return;
  }
  for (int t = 0; t < kTiles; ++t) {
    std::memcpy(&colsb_[t], config + 16 + 2 * t, 2);
    rows_[t] = config[48 + t];
    // A tile is either unused (both 0) or fully specified within palette 1's limits.
    if ((colsb_[t] == 0) != (rows_[t] == 0) || colsb_[t] > kMaxColBytes || rows_[t] > kMaxRows)
      faulted_ = true;
  }
}

bool AmxTileEmulator::usable(int tile) const {
  return configured_ && tile >= 0 && tile < kTiles && rows_[tile] != 0;
}

void AmxTileEmulator::zero(int tile) {
  if (!usable(tile)) {
    faulted_ = true;
    return;
  }
  std::memset(data_[tile], 0, sizeof(data_[tile]));
}

void AmxTileEmulator::load(int tile, const void* base, std::int64_t stride) {
  if (!usable(tile)) {
    faulted_ = true;
    return;
  }
  std::memset(data_[tile], 0, sizeof(data_[tile]));
  const auto* src = static_cast<const std::uint8_t*>(base);
  for (int r = 0; r < rows_[tile]; ++r) std::memcpy(data_[tile][r], src + r * stride, colsb_[tile]);
}

void AmxTileEmulator::store(int tile, void* base, std::int64_t stride) const {
  if (!usable(tile)) return;
  auto* dst = static_cast<std::uint8_t*>(base);
  for (int r = 0; r < rows_[tile]; ++r) std::memcpy(dst + r * stride, data_[tile][r], colsb_[tile]);
}

void AmxTileEmulator::dpbssd(int c, int a, int b) {
  // TDPBSSD's shape rules: M = C.rows = A.rows, K = A.colsb / 4 = B.rows, N * 4 = C.colsb = B.colsb.
  if (!usable(c) || !usable(a) || !usable(b) || c == a || c == b || a == b ||
      rows_[c] != rows_[a] || colsb_[a] / 4 != rows_[b] || colsb_[c] != colsb_[b] ||
      colsb_[a] % 4 != 0 || colsb_[c] % 4 != 0) {
    faulted_ = true;
    return;
  }
  const int m_rows = rows_[c], k_quads = colsb_[a] / 4, n_cols = colsb_[c] / 4;
  for (int m = 0; m < m_rows; ++m) {
    for (int n = 0; n < n_cols; ++n) {
      std::uint32_t acc;  // wraps like the hardware's int32 (the attention path never does)
      std::memcpy(&acc, &data_[c][m][4 * n], 4);
      for (int k = 0; k < k_quads; ++k)
        for (int i = 0; i < 4; ++i)
          acc += static_cast<std::uint32_t>(
              std::int32_t{static_cast<std::int8_t>(data_[a][m][4 * k + i])} *
              std::int32_t{static_cast<std::int8_t>(data_[b][k][4 * n + i])});
      std::memcpy(&data_[c][m][4 * n], &acc, 4);
    }
  }
}

}  // namespace kvb
