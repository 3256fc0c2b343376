#include "harness/thread_pool.h"

#include <hwloc.h>
#include <sched.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstring>
#include <thread>

#include "harness/error.h"
#include "harness/topology.h"

namespace kvb {
namespace {

inline void cpu_relax() noexcept {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause();
#elif defined(__aarch64__)
  asm volatile("yield");
#endif
}

// Spin first (a decode step has a barrier per layer, tens of microseconds apart), then sleep
// on a futex (std::atomic::wait) so idle or oversubscribed workers give their PU away. The
// spin is bounded in time, not iterations: PAUSE costs 10 to 140 cycles depending on the CPU.
constexpr auto kSpinTime = std::chrono::microseconds(50);

// Waits until `word` differs from `old`. `sleepers` lets the waker skip the futex syscall
// when nobody sleeps (seq_cst on both sides: either the waker sees the sleeper or the
// sleeper sees the new value).
void wait_change(const std::atomic<std::uint32_t>& word, std::uint32_t old,
                 std::atomic<int>& sleepers) noexcept {
  const auto deadline = std::chrono::steady_clock::now() + kSpinTime;
  for (int i = 1;; ++i) {
    if (word.load(std::memory_order_acquire) != old) return;
    cpu_relax();
    if (i % 64 == 0 && std::chrono::steady_clock::now() > deadline) break;
  }
  sleepers.fetch_add(1, std::memory_order_seq_cst);
  while (word.load(std::memory_order_seq_cst) == old) word.wait(old, std::memory_order_seq_cst);
  sleepers.fetch_sub(1, std::memory_order_relaxed);
}

// True once `epoch` (wrapping) has reached `target`.
inline bool reached(std::uint32_t epoch, std::uint32_t target) noexcept {
  return static_cast<std::int32_t>(epoch - target) >= 0;
}

// Waits until `word` reaches `target`; same spin-then-futex protocol as wait_change. The barrier
// calls this for every other worker's epoch, most of which have already arrived, so the clock is
// read only once the first look fails. Reading it up front took the Emerald Rapids guest's
// 16-worker barrier from the last arrival to the first exit 3.7-4.0k TSC ticks with skewed
// arrivals, against 0.45-0.52k like this. Against a build of the same source with the look
// compiled in but switched off (10 rounds, order alternating), its 16-thread decode_step LLC rows
// took 0.83-0.94x the time (faster in 9-10 of 10 rounds), 8 threads 0.97-1.05x (within the
// spread; results/xeon-emr-16c-kvm/session-2026-11-27g/).
void wait_reach(const std::atomic<std::uint32_t>& word, std::uint32_t target,
                std::atomic<int>& sleepers) noexcept {
  if (reached(word.load(std::memory_order_acquire), target)) return;
  const auto deadline = std::chrono::steady_clock::now() + kSpinTime;
  for (int i = 1;; ++i) {
    if (reached(word.load(std::memory_order_acquire), target)) return;
    cpu_relax();
    if (i % 64 == 0 && std::chrono::steady_clock::now() > deadline) break;
  }
  sleepers.fetch_add(1, std::memory_order_seq_cst);
  for (;;) {
    const std::uint32_t seen = word.load(std::memory_order_seq_cst);
    if (reached(seen, target)) break;
    word.wait(seen, std::memory_order_seq_cst);
  }
  sleepers.fetch_sub(1, std::memory_order_relaxed);
}

void publish(std::atomic<std::uint32_t>& word, std::atomic<int>& sleepers) noexcept {
  word.fetch_add(1, std::memory_order_seq_cst);
  if (sleepers.load(std::memory_order_seq_cst) > 0) word.notify_all();
}

// The worker index of the calling thread inside run() (the public barrier() takes none).
thread_local int tl_worker = 0;

}  // namespace

struct ThreadPool::Impl {
  const Topology* topo = nullptr;
  int n = 0;
  PinPolicy pin;
  std::vector<unsigned> pus;
  std::vector<std::thread> threads;
  hwloc_cpuset_t caller_saved = nullptr;

  alignas(64) std::atomic<std::uint32_t> dispatch_gen{0};
  void (*fn)(void*, int) = nullptr;
  void* ctx = nullptr;
  bool quit = false;
  // Barrier: each worker bumps its own epoch on its own cache line and waits until every other
  // worker's epoch has caught up. No read-modify-write on a shared line; every line has one
  // writer, and the waiters only read it. Measured (2-vCPU Xeon VM, empty run() with one
  // barrier, 10 alternating runs on a loaded machine): medians 1218 ns shared counter vs 988 ns
  // with these epochs and the join; minimums 292 vs 281 ns (the cache-line round trip).
  struct alignas(64) Epoch {
    std::atomic<std::uint32_t> arrived{0};
    std::uint32_t local = 0;  // only the owning worker touches it
    // Arrival stamps of stamped barriers, by epoch parity: written before `arrived` is published,
    // read after it is seen; the owner cannot reach the same parity again until every reader
    // has arrived at the barrier in between.
    std::atomic<std::uint64_t> stamp[2] = {};
  };
  std::unique_ptr<Epoch[]> epochs;
  // Rarely written (only when a waiter falls asleep), so it stays shared in every cache.
  alignas(64) std::atomic<int> sleepers{0};
  std::atomic<int> bind_failures{0};
  std::string bind_error;

  void bind_self(int w) {
    if (pus.empty()) return;
    hwloc_cpuset_t set = hwloc_bitmap_alloc();
    hwloc_bitmap_only(set, pus[static_cast<std::size_t>(w)]);
    if (hwloc_set_cpubind(topo->raw(), set, HWLOC_CPUBIND_THREAD) != 0) {
      if (bind_failures.fetch_add(1) == 0)
        bind_error = "binding worker " + std::to_string(w) + " to PU " +
                     std::to_string(pus[static_cast<std::size_t>(w)]) + " failed: " + std::strerror(errno);
    }
    hwloc_bitmap_free(set);
  }

  void barrier(int w) noexcept {
    Epoch& me = epochs[static_cast<std::size_t>(w)];
    const std::uint32_t e = ++me.local;
    me.arrived.store(e, std::memory_order_seq_cst);  // seq_cst: pairs with the sleeper count
    if (sleepers.load(std::memory_order_seq_cst) > 0) me.arrived.notify_all();
    for (int j = 0; j < n; ++j)
      if (j != w) wait_reach(epochs[static_cast<std::size_t>(j)].arrived, e, sleepers);
  }

  Arrival stamped_barrier(int w, std::uint64_t stamp) noexcept {
    Epoch& me = epochs[static_cast<std::size_t>(w)];
    const std::uint32_t e = ++me.local;
    me.stamp[e & 1].store(stamp, std::memory_order_relaxed);  // published by the store below
    me.arrived.store(e, std::memory_order_seq_cst);
    if (sleepers.load(std::memory_order_seq_cst) > 0) me.arrived.notify_all();
    Arrival latest{-1, stamp};
    for (int j = 0; j < n; ++j) {
      if (j == w) continue;
      const Epoch& other = epochs[static_cast<std::size_t>(j)];
      wait_reach(other.arrived, e, sleepers);
      const std::uint64_t s = other.stamp[e & 1].load(std::memory_order_relaxed);
      if (s > latest.stamp) latest = {j, s};
    }
    return latest;
  }

  // End of run(): a worker only announces it is done (it waits for the next dispatch anyway);
  // the caller waits for everybody. One cache-line trip instead of a full barrier's two.
  void arrive(int w) noexcept {
    Epoch& me = epochs[static_cast<std::size_t>(w)];
    me.arrived.store(++me.local, std::memory_order_seq_cst);
    if (sleepers.load(std::memory_order_seq_cst) > 0) me.arrived.notify_all();
  }
  void join() noexcept {
    const std::uint32_t e = ++epochs[0].local;
    epochs[0].arrived.store(e, std::memory_order_relaxed);  // nobody waits on it here
    for (int j = 1; j < n; ++j) wait_reach(epochs[static_cast<std::size_t>(j)].arrived, e, sleepers);
  }

  void shutdown() {
    quit = true;
    publish(dispatch_gen, sleepers);
    for (std::thread& t : threads) t.join();
    threads.clear();
    if (caller_saved) {
      hwloc_set_cpubind(topo->raw(), caller_saved, HWLOC_CPUBIND_THREAD);
      hwloc_bitmap_free(caller_saved);
      caller_saved = nullptr;
    }
  }

  void worker_main(int w) {
    tl_worker = w;
    bind_self(w);
    std::uint32_t seen = 0;
    barrier(w);  // construction handshake: binding done
    for (;;) {
      wait_change(dispatch_gen, seen, sleepers);
      seen = dispatch_gen.load(std::memory_order_acquire);
      if (quit) return;
      fn(ctx, w);
      arrive(w);
    }
  }
};

ThreadPool::ThreadPool(const Topology& topo, int threads, const PinPolicy& pin) : impl_(new Impl) {
  Impl& m = *impl_;
  m.topo = &topo;
  m.n = threads;
  m.pin = pin;
  m.pus = choose_pus(topo, threads, pin);  // throws on impossible requests
  m.epochs.reset(new Impl::Epoch[static_cast<std::size_t>(std::max(threads, 1))]);
  if (!m.pus.empty()) {
    m.caller_saved = hwloc_bitmap_alloc();
    hwloc_get_cpubind(topo.raw(), m.caller_saved, HWLOC_CPUBIND_THREAD);
  }
  m.bind_self(0);
  for (int w = 1; w < threads; ++w) m.threads.emplace_back([&m, w] { m.worker_main(w); });
  tl_worker = 0;
  m.barrier(0);
  if (m.bind_failures.load() != 0) {
    const std::string err = m.bind_error;
    m.shutdown();
    throw HarnessError(err);
  }
}

ThreadPool::~ThreadPool() {
  if (impl_) impl_->shutdown();
}

int ThreadPool::size() const noexcept { return impl_->n; }
const PinPolicy& ThreadPool::pin() const noexcept { return impl_->pin; }
const std::vector<unsigned>& ThreadPool::bound_pus() const noexcept { return impl_->pus; }

void ThreadPool::run_raw(void (*fn)(void*, int), void* ctx) {
  Impl& m = *impl_;
  m.fn = fn;
  m.ctx = ctx;
  publish(m.dispatch_gen, m.sleepers);
  tl_worker = 0;
  fn(ctx, 0);
  m.join();
}

void ThreadPool::barrier() noexcept { impl_->barrier(tl_worker); }

ThreadPool::Arrival ThreadPool::barrier(std::uint64_t arrival_stamp) noexcept {
  return impl_->stamped_barrier(tl_worker, arrival_stamp);
}

std::vector<unsigned> ThreadPool::where_workers_run() {
  std::vector<unsigned> where(static_cast<std::size_t>(size()));
  hwloc_topology_t h = impl_->topo->raw();
  run([&](int w) {
    hwloc_cpuset_t set = hwloc_bitmap_alloc();
    int pu = -1;
    if (hwloc_get_last_cpu_location(h, set, HWLOC_CPUBIND_THREAD) == 0) pu = hwloc_bitmap_first(set);
    if (pu < 0) pu = sched_getcpu();
    hwloc_bitmap_free(set);
    where[static_cast<std::size_t>(w)] = static_cast<unsigned>(pu);
  });
  return where;
}

std::string ThreadPool::pu_list() {
  const std::vector<unsigned> where = where_workers_run();
  std::string s;
  for (std::size_t i = 0; i < where.size(); ++i) s += (i ? "+" : "") + std::to_string(where[i]);
  return s;
}

double ThreadPool::empty_dispatch_ns(int rounds) {
  auto noop = [](int) {};
  for (int i = 0; i < 100; ++i) run(noop);  // wake everybody up first
  const auto t0 = std::chrono::steady_clock::now();
  for (int i = 0; i < rounds; ++i) run(noop);
  const auto t1 = std::chrono::steady_clock::now();
  return std::chrono::duration<double, std::nano>(t1 - t0).count() / rounds;
}

}  // namespace kvb
