// Portable model of the AMX tile instructions the int8 attention path uses (LDTILECFG with
// palette 1, TILEZERO, TILELOADD, TDPBSSD, TILESTORED), so that the AMX data flow (tile
// configuration, operand layouts, partial tiles) is tested on CPUs without AMX too. Shapes the
// hardware would refuse (#UD, or a #GP for a bad configuration) set faulted() instead.
#pragma once
#include <cstdint>

namespace kvb {

class AmxTileEmulator {
 public:
  static constexpr int kTiles = 8;
  static constexpr int kMaxRows = 16;
  static constexpr int kMaxColBytes = 64;

  // The 64-byte configuration: byte 0 palette, 1 start_row, colsb[16] (uint16) at byte 16,
  // rows[16] (uint8) at byte 48. Palette 1 only; all tiles are zeroed, as LDTILECFG does.
  void load_config(const std::uint8_t* config);
  void zero(int tile);
  // Rows x colsb bytes from base + row * stride; the rest of the tile reads as zero.
  void load(int tile, const void* base, std::int64_t stride);
  void store(int tile, void* base, std::int64_t stride) const;
  // C[m][n] += sum_k sum_i A[m][4k + i] * B[k][4n + i], int8 x int8 into int32.
  void dpbssd(int c, int a, int b);
  bool faulted() const { return faulted_; }

 private:
  bool usable(int tile) const;
  bool configured_ = false;
  bool faulted_ = false;
  std::uint16_t colsb_[kTiles] = {};
  std::uint8_t rows_[kTiles] = {};
  alignas(64) std::uint8_t data_[kTiles][kMaxRows][kMaxColBytes] = {};
};

}  // namespace kvb
