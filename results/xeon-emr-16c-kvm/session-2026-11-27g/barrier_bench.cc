// Barrier microbenchmark: T pinned workers, N barriers; per barrier the exit spread (last exit -
// first exit) and the release latency (first exit - last arrival), from rdtsc.
#include <x86intrin.h>
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <vector>
#include "harness/pin_policy.h"
#include "harness/thread_pool.h"
#include "harness/topology.h"
int main(int argc, char** argv) {
  const int T = argc > 1 ? std::atoi(argv[1]) : 16;
  const int N = argc > 2 ? std::atoi(argv[2]) : 20000;
  const int work = argc > 3 ? std::atoi(argv[3]) : 0;  // pause loops of work between barriers (skewed per worker)
  {
    auto t0 = __rdtsc();
    std::uint64_t s = 0;
    for (int i = 0; i < 100000; ++i) s += std::chrono::steady_clock::now().time_since_epoch().count();
    std::printf("steady_clock::now %.1f ticks (%llu)\n", (__rdtsc() - t0) / 1e5, (unsigned long long)(s & 1));
  }
  auto topo = kvb::Topology::discover();
  kvb::ThreadPool pool(*topo, T, kvb::parse_pin_policy("compact"));
  std::vector<std::uint64_t> arr(static_cast<size_t>(N) * T), ex(static_cast<size_t>(N) * T);
  for (int rep = 0; rep < 2; ++rep) {
    const auto w0 = __rdtsc();
    pool.run([&](int w) {
      for (int i = 0; i < N; ++i) {
        for (int k = 0; k < work * (1 + (w + i) % 4); ++k) __builtin_ia32_pause();
        arr[static_cast<size_t>(i) * T + w] = __rdtsc();
        pool.barrier();
        ex[static_cast<size_t>(i) * T + w] = __rdtsc();
      }
    });
    const double per = double(__rdtsc() - w0) / N;
    std::vector<double> spread, release;
    for (int i = 0; i < N; ++i) {
      auto a = arr.begin() + static_cast<long>(i) * T, e = ex.begin() + static_cast<long>(i) * T;
      const auto la = *std::max_element(a, a + T), fe = *std::min_element(e, e + T), le = *std::max_element(e, e + T);
      spread.push_back(double(le - fe));
      release.push_back(double(fe) - double(la));
    }
    std::sort(spread.begin(), spread.end());
    std::sort(release.begin(), release.end());
    std::printf("T=%d work=%d: %.0f ticks/iteration; exit spread median %.0f p90 %.0f; release (first exit - last arrival) median %.0f p90 %.0f\n", T, work, per,
                spread[N / 2], spread[N * 9 / 10], release[N / 2], release[N * 9 / 10]);
  }
}
