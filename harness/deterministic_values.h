// Deterministic fill values: element i of a buffer from (seed, i) alone, so any worker can write
// any part of it (first touch by the thread that later reads it) and get the same values.
#pragma once
#include <cstdint>

namespace kvb {

// SplitMix64's finaliser of x + the golden-ratio increment.
inline std::uint64_t splitmix64(std::uint64_t x) {
  x += 0x9e3779b97f4a7c15ULL;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

// A value in [-1, 1) with 24 random bits, for element i of the stream `seed`.
inline float deterministic_uniform(std::uint64_t seed, std::uint64_t i) {
  return static_cast<float>(splitmix64(seed ^ splitmix64(i)) >> 40) * (2.0f / 16777216.0f) - 1.0f;
}

}  // namespace kvb
