// Test fixture helper: a KV cache that owns its (64-byte aligned) buffers, plus random fills
// that keep the fp32 originals so storage rounding can be measured separately.
#pragma once
#include <cstdint>
#include <cstring>
#include <random>
#include <vector>

#include "hwy/aligned_allocator.h"
#include "kernels/cache_geometry.h"

namespace kvb::testing {

class OwnedCache {
 public:
  explicit OwnedCache(const CacheShape& shape) {
    status_ = CacheGeometry::create(shape, &geometry_);
    if (!ok(status_)) return;
    data_ = hwy::AllocateAligned<std::uint8_t>(static_cast<std::size_t>(geometry_.data_bytes()));
    std::memset(data_.get(), 0, static_cast<std::size_t>(geometry_.data_bytes()));
    scales_.assign(static_cast<std::size_t>(geometry_.scale_bytes() / sizeof(float)), 0.0f);
  }
  Status status() const { return status_; }
  const CacheGeometry& geometry() const { return geometry_; }
  std::uint8_t* bytes() { return data_.get(); }
  std::vector<float>& scales() { return scales_; }
  CacheView view() {
    return CacheView{&geometry_, data_.get(), scales_.empty() ? nullptr : scales_.data()};
  }

 private:
  Status status_ = Status::kOk;
  CacheGeometry geometry_;
  hwy::AlignedFreeUniquePtr<std::uint8_t[]> data_;
  std::vector<float> scales_;
};

inline std::vector<float> random_floats(std::size_t n, std::mt19937& rng, float lo = -1.0f,
                                        float hi = 1.0f) {
  std::uniform_real_distribution<float> dist(lo, hi);
  std::vector<float> v(n);
  for (float& x : v) x = dist(rng);
  return v;
}

}  // namespace kvb::testing
