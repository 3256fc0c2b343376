#include "kernels/gemm.h"

#include <algorithm>
#include <cstring>

#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "kernels/gemm.cc"
#include "hwy/foreach_target.h"  // IWYU pragma: keep
#include "hwy/highway.h"

HWY_BEFORE_NAMESPACE();
namespace kvb {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

constexpr std::int64_t kKBlock = 256;  // b panel of kKBlock x (kCols * lanes) floats: <= 64 KB

// c[R rows][C vectors at column j] += a[R rows][k0, k1) * b[k0, k1)[C vectors at column j].
template <int R, int C, class D>
HWY_INLINE void Block(D df, const float* a, std::int64_t lda, const float* b, std::int64_t ldb,
                      float* c, std::int64_t ldc, std::int64_t k0, std::int64_t k1, std::int64_t j) {
  const std::int64_t N = static_cast<std::int64_t>(hn::Lanes(df));
  hn::Vec<D> acc[R * C];
  for (int r = 0; r < R; ++r)
    for (int x = 0; x < C; ++x) acc[r * C + x] = hn::LoadU(df, c + r * ldc + j + x * N);
  for (std::int64_t kk = k0; kk < k1; ++kk) {
    hn::Vec<D> bv[C];
    for (int x = 0; x < C; ++x) bv[x] = hn::LoadU(df, b + kk * ldb + j + x * N);
    for (int r = 0; r < R; ++r) {
      const auto av = hn::Set(df, a[r * lda + kk]);
      for (int x = 0; x < C; ++x) acc[r * C + x] = hn::MulAdd(av, bv[x], acc[r * C + x]);
    }
  }
  for (int r = 0; r < R; ++r)
    for (int x = 0; x < C; ++x) hn::StoreU(acc[r * C + x], df, c + r * ldc + j + x * N);
}

template <int R, class D>
HWY_INLINE void Rows(D df, const float* a, const float* b, float* c, std::int64_t k,
                     std::int64_t n, std::int64_t k0, std::int64_t k1) {
  const std::int64_t N = static_cast<std::int64_t>(hn::Lanes(df));
  std::int64_t j = 0;
  for (; j + 4 * N <= n; j += 4 * N) Block<R, 4>(df, a, k, b, n, c, n, k0, k1, j);
  for (; j + N <= n; j += N) Block<R, 1>(df, a, k, b, n, c, n, k0, k1, j);
  for (; j < n; ++j)  // columns that do not fill a vector
    for (int r = 0; r < R; ++r) {
      float s = c[r * n + j];
      for (std::int64_t kk = k0; kk < k1; ++kk) s += a[r * k + kk] * b[kk * n + j];
      c[r * n + j] = s;
    }
}

void Gemm(const float* a, const float* b, float* c, std::int64_t m, std::int64_t k,
          std::int64_t n) {
  const hn::ScalableTag<float> df;
  std::fill(c, c + m * n, 0.0f);
  for (std::int64_t k0 = 0; k0 < k; k0 += kKBlock) {
    const std::int64_t k1 = std::min(k, k0 + kKBlock);
    std::int64_t i = 0;
    for (; i + 4 <= m; i += 4) Rows<4>(df, a + i * k, b, c + i * n, k, n, k0, k1);
    for (; i < m; ++i) Rows<1>(df, a + i * k, b, c + i * n, k, n, k0, k1);
  }
}

// NOLINTNEXTLINE(google-readability-namespace-comments)
}  // namespace HWY_NAMESPACE
}  // namespace kvb
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace kvb {

HWY_EXPORT(Gemm);

Status gemm_f32(const float* a, const float* b, float* c, std::int64_t m, std::int64_t k,
                std::int64_t n) noexcept {
  if (m < 0 || k < 0 || n < 0) return Status::kInvalidShape;
  if (m == 0 || n == 0) return Status::kOk;
  if (a == nullptr || b == nullptr || c == nullptr) return Status::kNullArgument;
  HWY_DYNAMIC_DISPATCH(Gemm)(a, b, c, m, k, n);
  return Status::kOk;
}

}  // namespace kvb
#endif  // HWY_ONCE
