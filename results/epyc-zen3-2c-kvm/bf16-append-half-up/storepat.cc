// scratch: store patterns to the append's destination rows (bf16, 8 KV heads, 28 layers, head stride ctx*256)
#include <immintrin.h>
#include <sys/mman.h>
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>
using Clock = std::chrono::steady_clock;
alignas(64) static unsigned char src[16 * 512];
alignas(64) static float fsrc[16 * 128];
static unsigned char* base;
static long S, pos;
static inline unsigned char* row(int l, int kv, int h) { return base + ((l * 2 + kv) * 8 + h) * S + pos * 256; }
__attribute__((noinline)) void fill() {
  const __m256i c = _mm256_set1_epi16(0x3f80);
  for (int l = 0; l < 28; ++l) for (int kv = 0; kv < 2; ++kv) for (int h = 0; h < 8; ++h) {
    unsigned char* o = row(l, kv, h);
    for (int j = 0; j < 256; j += 32) _mm256_storeu_si256((__m256i*)(o + j), c);
  } }
__attribute__((noinline)) void copy_block() {
  for (int l = 0; l < 28; ++l) for (int kv = 0; kv < 2; ++kv) for (int h = 0; h < 8; ++h) {
    unsigned char* o = row(l, kv, h); const unsigned char* s = src + (kv * 8 + h) * 256;
    __m256i x[8]; for (int i = 0; i < 8; ++i) x[i] = _mm256_load_si256((const __m256i*)(s + 32 * i));
    for (int i = 0; i < 8; ++i) _mm256_storeu_si256((__m256i*)(o + 32 * i), x[i]);
  } }
__attribute__((noinline)) void copy_inter() {
  for (int l = 0; l < 28; ++l) for (int kv = 0; kv < 2; ++kv) for (int h = 0; h < 8; ++h) {
    unsigned char* o = row(l, kv, h); const unsigned char* s = src + (kv * 8 + h) * 256;
    for (int i = 0; i < 8; ++i) _mm256_storeu_si256((__m256i*)(o + 32 * i), _mm256_load_si256((const __m256i*)(s + 32 * i)));
  } }
__attribute__((noinline)) void glibc() {
  for (int l = 0; l < 28; ++l) for (int kv = 0; kv < 2; ++kv) for (int h = 0; h < 8; ++h)
    memcpy(row(l, kv, h), src + (kv * 8 + h) * 256, 256);
}
// half-up bf16 from fp32 source (512 B per row), load 2 / store 1 interleaved, as EncodeBF16HalfUp
__attribute__((noinline)) void halfup() {
  const __m256i half = _mm256_set1_epi32(0x8000);
  for (int l = 0; l < 28; ++l) for (int kv = 0; kv < 2; ++kv) for (int h = 0; h < 8; ++h) {
    unsigned char* o = row(l, kv, h); const float* s = fsrc + (kv * 8 + h) * 128;
    for (int j = 0; j < 128; j += 16) {
      __m256i a = _mm256_add_epi32(_mm256_load_si256((const __m256i*)(s + j)), half);
      __m256i b = _mm256_add_epi32(_mm256_load_si256((const __m256i*)(s + j + 8)), half);
      __m256i p = _mm256_permute4x64_epi64(_mm256_packus_epi32(_mm256_srli_epi32(a, 16), _mm256_srli_epi32(b, 16)), 0xd8);
      _mm256_storeu_si256((__m256i*)(o + 2 * j), p);
    } } }
// the same, all 16 loads of a row first, then 8 stores
__attribute__((noinline)) void halfup_block() {
  const __m256i half = _mm256_set1_epi32(0x8000);
  for (int l = 0; l < 28; ++l) for (int kv = 0; kv < 2; ++kv) for (int h = 0; h < 8; ++h) {
    unsigned char* o = row(l, kv, h); const float* s = fsrc + (kv * 8 + h) * 128;
    __m256i p[8];
    for (int j = 0; j < 128; j += 16) {
      __m256i a = _mm256_add_epi32(_mm256_load_si256((const __m256i*)(s + j)), half);
      __m256i b = _mm256_add_epi32(_mm256_load_si256((const __m256i*)(s + j + 8)), half);
      p[j / 16] = _mm256_permute4x64_epi64(_mm256_packus_epi32(_mm256_srli_epi32(a, 16), _mm256_srli_epi32(b, 16)), 0xd8);
    }
    for (int i = 0; i < 8; ++i) _mm256_storeu_si256((__m256i*)(o + 32 * i), p[i]);
  } }
int main() {
  std::vector<long> ctxs = {4080, 4092, 4093, 4094, 4095, 4096, 4097};
  size_t bytes = 28ul * 16 * 4097 * 256 + (4 << 20);
  void* p; posix_memalign(&p, 2 << 20, bytes); madvise(p, bytes, MADV_HUGEPAGE); memset(p, 1, bytes);
  base = (unsigned char*)p;
  for (int i = 0; i < 16 * 512; ++i) src[i] = i * 7;
  for (int i = 0; i < 16 * 128; ++i) fsrc[i] = i * 0.37f;
  struct V { const char* n; void (*f)(); } vs[] = {{"fill", fill}, {"copy_block", copy_block}, {"copy_inter", copy_inter}, {"glibc", glibc}, {"halfup", halfup}, {"halfup_block", halfup_block}};
  const int nv = 6;
  std::vector<std::vector<std::vector<double>>> t(ctxs.size(), std::vector<std::vector<double>>(nv));
  for (int round = 0; round < 11; ++round)
    for (size_t c = 0; c < ctxs.size(); ++c) {
      S = ctxs[c] * 256; pos = ctxs[c] - 1;
      for (int v = 0; v < nv; ++v) {
        for (int w = 0; w < 20; ++w) vs[v].f();
        auto t0 = Clock::now(); for (int it = 0; it < 100; ++it) vs[v].f(); auto t1 = Clock::now();
        t[c][v].push_back(std::chrono::duration<double, std::nano>(t1 - t0).count() / 100);
      }
    }
  printf("%-6s", "ctx"); for (int v = 0; v < nv; ++v) printf(" %12s", vs[v].n); printf("\n");
  for (size_t c = 0; c < ctxs.size(); ++c) {
    printf("%-6ld", ctxs[c]);
    for (int v = 0; v < nv; ++v) { auto& x = t[c][v]; std::sort(x.begin(), x.end()); printf(" %12.0f", x[5]); }
    printf("\n");
  }
}
