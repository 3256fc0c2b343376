// Scratch: why is the VCVTNE2PS2BF16 append slower? 448 rows of 128 fp32 -> bf16, cache-like strides.
#include <immintrin.h>
#include <sys/mman.h>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <cstdlib>
#include <algorithm>
#include <vector>
constexpr int D = 128, ROWS = 448, HEADS = 8;
constexpr std::size_t kStride = std::size_t{4096} * 256;  // one head's rows: 1 MiB
#define T __attribute__((target("avx512f,avx512dq,avx512bw,avx512bf16"), noinline))
T void v_native(const float* s, std::uint16_t* o) {
  __m512 x[8]; __mmask16 m = 0;
  for (int i = 0; i < 8; ++i) { x[i] = _mm512_loadu_ps(s + 16 * i); m |= _mm512_fpclass_ps_mask(x[i], 0x20); }
  if (m) std::abort();
  for (int i = 0; i < 4; ++i) _mm512_storeu_si512(o + 32 * i, (__m512i)_mm512_cvtne2ps_pbh(x[2 * i + 1], x[2 * i]));
}
T void v_nocheck(const float* s, std::uint16_t* o) {
  for (int i = 0; i < 4; ++i) _mm512_storeu_si512(o + 32 * i, (__m512i)_mm512_cvtne2ps_pbh(_mm512_loadu_ps(s + 32 * i + 16), _mm512_loadu_ps(s + 32 * i)));
}
T void v_single(const float* s, std::uint16_t* o) {
  for (int i = 0; i < 8; ++i) _mm256_storeu_si256((__m256i*)(o + 16 * i), (__m256i)_mm512_cvtneps_pbh(_mm512_loadu_ps(s + 16 * i)));
}
T void v_int(const float* s, std::uint16_t* o) {
  const __m512i idx = _mm512_set_epi16(63,61,59,57,55,53,51,49,47,45,43,41,39,37,35,33,31,29,27,25,23,21,19,17,15,13,11,9,7,5,3,1);
  for (int i = 0; i < 4; ++i) {
    __m512i a = _mm512_loadu_si512(s + 32 * i), b = _mm512_loadu_si512(s + 32 * i + 16);
    a = _mm512_add_epi32(a, _mm512_add_epi32(_mm512_set1_epi32(0x7fff), _mm512_and_si512(_mm512_srli_epi32(a, 16), _mm512_set1_epi32(1))));
    b = _mm512_add_epi32(b, _mm512_add_epi32(_mm512_set1_epi32(0x7fff), _mm512_and_si512(_mm512_srli_epi32(b, 16), _mm512_set1_epi32(1))));
    _mm512_storeu_si512(o + 32 * i, _mm512_permutex2var_epi16(a, idx, b));
  }
}
T void v_copy(const float* s, std::uint16_t* o) {  // 256 bytes, as the memcpy of a bf16 row
  for (int i = 0; i < 4; ++i) _mm512_storeu_si512(o + 32 * i, _mm512_loadu_si512(s + 16 * i));
}
T void v_fma(const float* s, std::uint16_t* o) {  // int path plus one heavy FP op per vector
  __m512 acc = _mm512_setzero_ps();
  for (int i = 0; i < 8; ++i) acc = _mm512_fmadd_ps(_mm512_loadu_ps(s + 16 * i), acc, acc);
  v_int(s, o); if (_mm512_reduce_add_ps(acc) == 12345.f) std::abort();
}
using Fn = void (*)(const float*, std::uint16_t*);
int main(int argc, char** argv) {
  int reps = argc > 1 ? atoi(argv[1]) : 20000;
  auto* dst = (std::uint16_t*)mmap(nullptr, kStride * 2 * ROWS / HEADS * HEADS / 2 + kStride, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  int off = argc > 2 ? atoi(argv[2]) : 0; std::vector<float> srcbuf(HEADS * 2 * D + 4096); float* srcp = (float*)(((std::uintptr_t)srcbuf.data() + 4095) / 4096 * 4096) + off; struct { float* p; float* data() { return p; } std::size_t size() { return HEADS * 2 * D; } float& operator[](std::size_t i) { return p[i]; } } src{srcp};
  for (std::size_t i = 0; i < src.size(); ++i) src[i] = (float)((i * 2654435761u) % 1000003) / 1000003.f - 0.5f;
  std::vector<std::uint16_t*> rows;
  for (int r = 0; r < ROWS; ++r) rows.push_back(dst + (r * kStride + 4095 * 256) / 2);
  for (auto* p : rows) std::memset(p, 0, 256);
  struct { const char* name; Fn f; } v[] = {{"native", v_native}, {"nocheck", v_nocheck}, {"single", v_single}, {"int", v_int}, {"copy", v_copy}, {"int+fma", v_fma}};
  for (int round = 0; round < 3; ++round)
    for (auto& [name, f] : v) {
      std::vector<double> t;
      for (int k = 0; k < 5; ++k) {
        auto a = std::chrono::steady_clock::now();
        for (int rep = 0; rep < reps / 5; ++rep)
          for (int r = 0; r < ROWS; ++r) f(src.data() + (r % (2 * HEADS)) * D, rows[r]);
        t.push_back(std::chrono::duration<double, std::nano>(std::chrono::steady_clock::now() - a).count() / (reps / 5));
      }
      std::sort(t.begin(), t.end());
      std::printf("round %d %-8s %9.0f ns per 448 rows (min %9.0f)\n", round, name, t[2], t[0]);
    }
}
