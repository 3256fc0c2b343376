// Append-like (per token: 28 layers x 8 K and 8 V rows of 128, rows of one position a head
// stride of `cap` positions apart): encode_token (cached stores) vs encode_rows with streaming
// stores, against a memcpy of encoded rows. Usage: appnt CAP DTYPE(fp32|bf16|fp16)
#include <x86intrin.h>
#include <cstdio>
#include <cstring>
#include <cstdlib>
#include <vector>
#include "kernels/dtype.h"
#include "kernels/row_encode.h"
int main(int argc, char** argv) {
  const int L = 28, H = 8, d = 128;
  const long cap = argc > 1 ? atol(argv[1]) : 4096;
  kvb::DType dt = kvb::DType::kBF16;
  if (argc > 2) kvb::parse_dtype(argv[2], &dt);
  const long rb = kvb::dtype_row_bytes(dt, d);
  const long head_stride = cap * d;  // elements
  const size_t layer_bytes = size_t(2) * H * cap * rb;
  unsigned char* cache = static_cast<unsigned char*>(aligned_alloc(2 << 20, L * layer_bytes));
  memset(cache, 0, L * layer_bytes);
  std::vector<float> k(H * d), v(H * d);
  for (int i = 0; i < H * d; ++i) { k[i] = 0.01f * (i % 313) - 1.1f; v[i] = 0.02f * (i % 211) - 2.0f; }
  std::vector<unsigned char> enc(2 * H * rb, 0x3f);
  const long pos = cap - 1;
  for (int rep = 0; rep < 3; ++rep)
    for (int mode = 0; mode < 3; ++mode) {
      const int N = 3000;
      auto t0 = __rdtsc();
      for (int n = 0; n < N; ++n)
        for (int l = 0; l < L; ++l) {
          unsigned char* kd = cache + l * layer_bytes + pos * rb;
          unsigned char* vd = kd + layer_bytes / 2;
          if (mode == 0) {
            kvb::encode_token({k.data(), kd, nullptr}, {v.data(), vd, nullptr}, head_stride, H, d, dt, 1);
          } else if (mode == 1) {
            kvb::encode_rows(k.data(), d, kd, head_stride, H, d, dt, nullptr, 1, true);
            kvb::encode_rows(v.data(), d, vd, head_stride, H, d, dt, nullptr, 1, true);
          } else {
            for (int h = 0; h < H; ++h) { memcpy(kd + h * cap * rb, &enc[h * rb], rb); memcpy(vd + h * cap * rb, &enc[(H + h) * rb], rb); }
          }
        }
      std::printf("cap %ld %s %s: %.0f ticks per token\n", cap, argc > 2 ? argv[2] : "bf16", mode == 0 ? "cached  " : mode == 1 ? "stream  " : "memcpy  ", double(__rdtsc() - t0) / N);
    }
}
