// Read bandwidth of one stream against two (the decode's K and V tiles): each of T pinned threads
// reads its share of 2 x R bytes, either as one contiguous range or alternating blocks of B bytes
// from a K region and a V region (K block i, V block i, K block i+1, ...). AVX-512 loads summed
// into 8 accumulators; optional software prefetch P bytes ahead in each stream.
#include <immintrin.h>
#include <pthread.h>
#include <sched.h>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <thread>
#include <vector>
#include <sys/mman.h>

static inline __m512 read_block(const char* p, long bytes, __m512 acc, long pf) {
  __m512 a0 = _mm512_setzero_ps(), a1 = a0, a2 = a0, a3 = a0;
  for (long i = 0; i < bytes; i += 256) {
    if (pf) _mm_prefetch(p + i + pf, _MM_HINT_T0), _mm_prefetch(p + i + pf + 64, _MM_HINT_T0), _mm_prefetch(p + i + pf + 128, _MM_HINT_T0), _mm_prefetch(p + i + pf + 192, _MM_HINT_T0);
    a0 = _mm512_add_ps(a0, _mm512_load_ps(p + i));
    a1 = _mm512_add_ps(a1, _mm512_load_ps(p + i + 64));
    a2 = _mm512_add_ps(a2, _mm512_load_ps(p + i + 128));
    a3 = _mm512_add_ps(a3, _mm512_load_ps(p + i + 192));
  }
  return _mm512_add_ps(acc, _mm512_add_ps(_mm512_add_ps(a0, a1), _mm512_add_ps(a2, a3)));
}

int main(int argc, char** argv) {
  const int T = atoi(argv[1]);
  const long R = atol(argv[2]) << 20;      // bytes per region (K and V), MiB
  const int reps = argc > 3 ? atoi(argv[3]) : 5;
  char* k = static_cast<char*>(aligned_alloc(2 << 20, R));
  char* v = static_cast<char*>(aligned_alloc(2 << 20, R));
  madvise(k, R, MADV_HUGEPAGE); madvise(v, R, MADV_HUGEPAGE);
  struct Mode { const char* name; long block; long pf; };
  const Mode modes[] = {{"one stream", 0, 0}, {"two, 4 KB blocks", 4096, 0}, {"two, 8 KB blocks", 8192, 0},
                        {"two, 128 KB blocks", 131072, 0}, {"one stream, pf 4 KB", 0, 4096}, {"two, 8 KB, pf 4 KB", 8192, 4096}};
  std::atomic<int> go{0}, done{0};
  std::atomic<int> mode_idx{-1};
  std::vector<float> sink(T * 16);
  std::vector<std::thread> th;
  for (int w = 0; w < T; ++w)
    th.emplace_back([&, w] {
      cpu_set_t s; CPU_ZERO(&s); CPU_SET(w, &s); pthread_setaffinity_np(pthread_self(), sizeof s, &s);
      const long share = R / T / 131072 * 131072;
      char* kb = k + w * share; char* vb = v + w * share;
      memset(kb, 1, share); memset(vb, 1, share);  // first touch
      done.fetch_add(1);
      int seen = 0;
      for (;;) {
        while (go.load() == seen) _mm_pause();
        seen = go.load();
        const int m = mode_idx.load();
        if (m < 0) return;
        const Mode& md = modes[m];
        __m512 acc = _mm512_setzero_ps();
        if (md.block == 0) {
          acc = read_block(kb, share, acc, md.pf);
          acc = read_block(vb, share, acc, md.pf);
        } else {
          for (long o = 0; o < share; o += md.block) {
            acc = read_block(kb + o, md.block, acc, md.pf);
            acc = read_block(vb + o, md.block, acc, md.pf);
          }
        }
        sink[w * 16] += _mm512_reduce_add_ps(acc);
        done.fetch_add(1);
      }
    });
  while (done.load() < T) std::this_thread::sleep_for(std::chrono::milliseconds(1));
  const long bytes = 2 * (R / T / 131072 * 131072) * T;
  for (int rep = 0; rep < reps; ++rep)
    for (int m = 0; m < 6; ++m) {
      mode_idx.store(m); done.store(0);
      auto t0 = std::chrono::steady_clock::now();
      go.fetch_add(1);
      while (done.load() < T) std::this_thread::sleep_for(std::chrono::microseconds(50));
      const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
      std::printf("T=%d rep %d %-20s %7.1f GB/s\n", T, rep, modes[m].name, bytes / s / 1e9);
    }
  mode_idx.store(-1); go.fetch_add(1);
  for (auto& t : th) t.join();
}
