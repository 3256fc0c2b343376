// Append-like: per token, 28 layers x (K, V) x 8 heads rows of 128 fp32 encoded to bf16 into a
// cache whose rows of one position are 1 MB apart (4096 positions x 256 B), native vs Highway,
// against a memcpy of pre-encoded rows to the same addresses. Built with -DKVB_BF16_NATIVE_PATCH
// where bf16-native.patch is applied; without it (main) its "native" lines time Highway again.
#include <x86intrin.h>
#include <cstdio>
#include <cstring>
#include <cstdlib>
#include <vector>
#ifdef KVB_BF16_NATIVE_PATCH
#include "kernels/bf16_native.h"
#endif
#include "kernels/row_encode.h"
int main(int argc, char** argv) {
  const int L = 28, H = 8, d = 128; const long cap = argc > 1 ? atol(argv[1]) : 4096;
  const long head_stride = cap * d;  // elements
  const size_t cache_elems = size_t(L) * 2 * H * head_stride;
  uint16_t* cache = static_cast<uint16_t*>(aligned_alloc(2 << 20, cache_elems * 2));
  memset(cache, 0, cache_elems * 2);
  std::vector<float> k(H * d), v(H * d);
  for (int i = 0; i < H * d; ++i) { k[i] = 0.01f * (i % 313) - 1.1f; v[i] = 0.02f * (i % 211) - 2.0f; }
  std::vector<uint16_t> enc(2 * H * d);
  for (int i = 0; i < H * d; ++i) { enc[i] = 0x3f80; enc[H * d + i] = 0x4000; }
  const long pos = cap - 1;
  for (int rep = 0; rep < 3; ++rep) {
    for (int mode = 0; mode < 3; ++mode) {
#ifdef KVB_BF16_NATIVE_PATCH
      if (mode < 2) kvb::detail::set_bf16_native_enabled(mode == 1);
#endif
      const int N = 3000;
      auto t0 = __rdtsc();
      for (int n = 0; n < N; ++n)
        for (int l = 0; l < L; ++l) {
          uint16_t* kd = cache + (size_t(l) * 2 + 0) * H * head_stride + pos * d;
          uint16_t* vd = cache + (size_t(l) * 2 + 1) * H * head_stride + pos * d;
          if (mode < 2) {
            kvb::encode_token({k.data(), kd, nullptr}, {v.data(), vd, nullptr}, head_stride, H, d, kvb::DType::kBF16, 1);
          } else {
            for (int h = 0; h < H; ++h) { memcpy(kd + h * head_stride, &enc[h * d], 2 * d); memcpy(vd + h * head_stride, &enc[(H + h) * d], 2 * d); }
          }
        }
      std::printf("%s: %.0f ticks per token\n", mode == 0 ? "hwy   " : mode == 1 ? "native" : "memcpy", double(__rdtsc() - t0) / N);
    }
  }
}
