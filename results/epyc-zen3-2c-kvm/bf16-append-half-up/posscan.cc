// scratch: bf16/fp16/int8 warm-slot append vs memcpy at several positions, same allocation, alternating
#include <sys/mman.h>
#include <algorithm>
#include <cmath>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>
#include "kernels/cache_geometry.h"
#include "kernels/cache_write.h"
#include "kernels/dtype.h"
#include "kernels/row_encode.h"
using namespace kvb;
using Clock = std::chrono::steady_clock;
int main(int argc, char** argv) {
  const char* dt = argc > 1 ? argv[1] : "bf16";
  DType dtype = !strcmp(dt, "fp16") ? DType::kF16 : !strcmp(dt, "int8") ? DType::kI8 : DType::kBF16;
  long cap = argc > 2 ? atol(argv[2]) : 0;
  int allocs = argc > 3 ? atoi(argv[3]) : 3;
  std::vector<long> poss = {4080, 4088, 4092, 4093, 4094, 4095, 4096, 4097};
  std::vector<CacheGeometry> geos(poss.size());
  for (size_t i = 0; i < poss.size(); ++i) {
    CacheShape s{.layers = 28, .q_heads = 16, .kv_heads = 8, .head_dim = 128, .capacity = cap ? cap : poss[i] + 1, .dtype = dtype};
    CacheGeometry::create(s, &geos[i]);
  }
  const CacheGeometry& geo = geos.back();
  long soff = argc > 4 ? atol(argv[4]) : -1;
  std::vector<float> kh(8 * 128), vh(8 * 128);
  struct SrcVec { float* p; float* data() { return p; } } k{kh.data()}, v{vh.data()};
  if (soff >= 0) { void* q; posix_memalign(&q, 2 << 20, 4 << 20); madvise(q, 4 << 20, MADV_HUGEPAGE); memset(q, 0, 4 << 20);
    k.p = (float*)((char*)q + soff); v.p = k.p + 8 * 128; }
  for (size_t i = 0; i < 1024; ++i) { k.p[i] = std::sin(i * 0.37f); v.p[i] = std::cos(i * 0.91f); }
  const long rb = dtype_row_bytes(dtype, 128);
  for (int a = 0; a < allocs; ++a) {
    size_t bytes = (geo.data_bytes() + (2 << 20)) / (2 << 20) * (2 << 20);
    void* p = nullptr; posix_memalign(&p, 2 << 20, bytes); madvise(p, bytes, MADV_HUGEPAGE);
    memset(p, 0, bytes);
    std::vector<float> scales(geo.scale_bytes() / 4 + 1);
    CacheView view{&geo, p, scales.data()};
    std::vector<unsigned char> enc(16 * rb);
    append_token(view, 0, 0, k.data(), v.data());
    for (int kv = 0; kv < 2; ++kv) for (int h = 0; h < 8; ++h)
      memcpy(&enc[(kv * 8 + h) * rb], (unsigned char*)p + geo.byte_offset(0, kv ? KV::kValue : KV::kKey, h, 0), rb);
    std::vector<std::vector<double>> ta(poss.size()), tm(poss.size()), ts(poss.size()), tr(poss.size());
    alignas(64) static unsigned char stage[16 * 512]; static float sscale[16];
    for (int round = 0; round < 15; ++round)
      for (size_t pi = 0; pi < poss.size(); ++pi) {
        long pos = cap ? poss[pi] : poss[pi];
        const CacheGeometry& geo = geos[pi];
        CacheView view{&geo, p, scales.data()};
        const long S = geo.head_stride() * (dtype == DType::kI8 ? 1 : 2);
        if (round == 0 && a == 0 && geo.byte_offset(27, KV::kValue, 7, pos) != ((27 * 2 + 1) * 8 + 7) * S + pos * rb) printf("bad offset\n");
        auto app = [&] { for (int l = 0; l < 28; ++l) append_token(view, l, pos, k.data(), v.data()); };
        auto cpy = [&] { for (int l = 0; l < 28; ++l) for (int kv = 0; kv < 2; ++kv) for (int h = 0; h < 8; ++h)
          memcpy((unsigned char*)p + ((l * 2 + kv) * 8 + h) * S + pos * rb, &enc[(kv * 8 + h) * rb], rb); };
        for (int w = 0; w < 20; ++w) app();
        auto t0 = Clock::now(); for (int it = 0; it < 100; ++it) app(); auto t1 = Clock::now();
        auto stg = [&] { for (int l = 0; l < 28; ++l) {
          encode_rows(k.data(), 128, stage, 128, 8, 128, dtype, sscale, false);
          encode_rows(v.data(), 128, stage + 8 * rb, 128, 8, 128, dtype, sscale + 8, false);
          for (int kv = 0; kv < 2; ++kv) for (int h = 0; h < 8; ++h)
            memcpy((unsigned char*)p + ((l * 2 + kv) * 8 + h) * S + pos * rb, stage + (kv * 8 + h) * rb, rb); } };
        auto rev = [&] { for (int l = 0; l < 28; ++l) for (int h = 7; h >= 0; --h) append_token_heads(view, l, pos, k.data(), v.data(), h, 1); };
        for (int w = 0; w < 20; ++w) stg();
        auto u0 = Clock::now(); for (int it = 0; it < 100; ++it) stg(); auto u1 = Clock::now();
        for (int w = 0; w < 20; ++w) rev();
        auto u2 = Clock::now(); for (int it = 0; it < 100; ++it) rev(); auto u3 = Clock::now();
        ts[pi].push_back(std::chrono::duration<double, std::nano>(u1 - u0).count() / 100);
        tr[pi].push_back(std::chrono::duration<double, std::nano>(u3 - u2).count() / 100);
        for (int w = 0; w < 20; ++w) cpy();
        auto t2 = Clock::now(); for (int it = 0; it < 100; ++it) cpy(); auto t3 = Clock::now();
        ta[pi].push_back(std::chrono::duration<double, std::nano>(t1 - t0).count() / 100);
        tm[pi].push_back(std::chrono::duration<double, std::nano>(t3 - t2).count() / 100);
      }
    printf("alloc %d %s cap %s:", a, dt, cap ? "fixed" : "pos+1");
    for (size_t pi = 0; pi < poss.size(); ++pi) {
      for (auto* t : {&ta, &tm, &ts, &tr}) std::sort((*t)[pi].begin(), (*t)[pi].end());
      double A = ta[pi][7], M = tm[pi][7];
      printf("\n  %ld: append %.0f memcpy %.0f stage %.0f perhead-rev %.0f", poss[pi], A, M, ts[pi][7], tr[pi][7]);
    }
    printf("\n"); fflush(stdout);
    free(p);
  }
}
