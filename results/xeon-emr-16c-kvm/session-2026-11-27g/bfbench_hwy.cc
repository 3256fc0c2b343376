#include <cstdio>
#include <vector>
#include <x86intrin.h>
#include "kernels/row_encode.h"
int main() {
  const int d = 128, rows = 16;
  std::vector<float> src(rows * d); for (int i = 0; i < rows * d; ++i) src[i] = 0.001f * (i % 997) - 0.3f;
  std::vector<unsigned short> dst(rows * d * 64);
  for (int rep = 0; rep < 5; ++rep) {
    const int N = 200000;
    auto t0 = __rdtsc();
    for (int i = 0; i < N; ++i) kvb::encode_rows(src.data(), d, dst.data() + (i % 28) * rows * d, d, rows, d, kvb::DType::kBF16, nullptr, false);
    std::printf("%.1f ticks per 16x128 bf16 encode\n", double(__rdtsc() - t0) / N);
  }
}
