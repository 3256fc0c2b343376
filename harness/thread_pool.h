// Persistent pinned workers with cheap dispatch and a spin-then-block barrier. The calling
// thread is worker 0 (bound like the others while the pool lives), so T threads use T PUs.
#pragma once
#include <cstdint>
#include <memory>
#include <string>
#include <type_traits>
#include <vector>

#include "harness/pin_policy.h"

namespace kvb {

class Topology;

class ThreadPool {
 public:
  // Starts threads-1 workers and binds all of them (hwloc_set_cpubind, HWLOC_CPUBIND_THREAD).
  // Throws HarnessError for impossible requests or if binding fails.
  ThreadPool(const Topology& topo, int threads, const PinPolicy& pin);
  ~ThreadPool();
  ThreadPool(const ThreadPool&) = delete;
  ThreadPool& operator=(const ThreadPool&) = delete;

  int size() const noexcept;
  const PinPolicy& pin() const noexcept;
  const std::vector<unsigned>& bound_pus() const noexcept;  // requested binding, empty if none

  // Runs fn(worker) on every worker (0..size-1) and returns when all are done.
  // fn may call barrier() to synchronise all workers in the middle of a run.
  template <class F>
  void run(F&& fn) {
    run_raw([](void* ctx, int w) { (*static_cast<std::remove_reference_t<F>*>(ctx))(w); }, &fn);
  }
  void run_raw(void (*fn)(void*, int), void* ctx);
  // Called from inside run() by every worker: returns once all workers arrived.
  void barrier() noexcept;
  // The same barrier, also saying whom the caller waited for: each worker passes the time of its
  // arrival on a clock every PU shares (the timestamp counter), and gets back the latest arrival
  // among the other workers' and whose it was (worker -1 and its own stamp when all of them came
  // earlier). The caller's wait for the others is then that stamp minus its own, which leaves out
  // the time it was itself descheduled after they arrived. Every worker calls the same kind of
  // barrier at a given crossing.
  struct Arrival {
    int worker = -1;
    std::uint64_t stamp = 0;
  };
  Arrival barrier(std::uint64_t arrival_stamp) noexcept;

  // Where each worker actually runs (hwloc_get_last_cpu_location), worker i -> result[i].
  std::vector<unsigned> where_workers_run();
  // "0+1": the verified PU list for the CSV `pu_list` column.
  std::string pu_list();
  // Mean cost of one empty run() including one barrier, ns.
  double empty_dispatch_ns(int rounds = 20000);

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace kvb
