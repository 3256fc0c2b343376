// Hardware ceilings measured in the same run, with the same pool, pinning and placement as
// the benchmarks: read, write, non-temporal write and copy bandwidth at working sets sized
// from hwloc for L1, L2, L3 and DRAM, peak FP32 FMA throughput, and the time of one crossing of
// the barrier the parallel decode ends each layer with.
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "harness/memory.h"
#include "kernels/sw_prefetch.h"

namespace kvb {

class ThreadPool;
class Topology;

enum class CeilingKind { kRead, kWrite, kWriteNT, kCopy, kFma, kBarrier };
const char* ceiling_benchmark_name(CeilingKind k);  // "ceiling_read", ... (CSV `benchmark`)
// The barrier's crossing measured again after a run's last benchmark: a host that moves the
// vCPUs while the rows run shows as a crossing far from the start's (ceiling_barrier).
inline constexpr const char* kBarrierEndBenchmark = "ceiling_barrier_end";
// The FMA ceiling's bursts taken again after a run's last benchmark: on a shared host a worker's
// core can stay slowed through every burst at the start and not at the end (or the other way),
// and the run's roof is the faster of its two ends (ceiling_fma).
inline constexpr const char* kFmaEndBenchmark = "ceiling_fma_end";

struct WorkingSet {
  std::string level;        // "L1", "L2", "L3", "DRAM"
  std::int64_t bytes = 0;   // total over all threads
};
// Per cache level: half the capacity of that level's instances the pool's PUs touch (private
// L1/L2: x threads; shared L3: the LLC once, see llc_working_set_bytes), and max(4 x LLC, 1 GiB)
// for DRAM. Levels hwloc lacks are skipped. Sizes are totals, split evenly over the workers.
// The DRAM level's working set: max(4 x LLC, 1 GiB), so that no cache holds a useful share of
// it. `context = auto` sizes its DRAM contexts the same way (benchmarks/sweep).
std::int64_t dram_working_set_bytes(std::int64_t llc_bytes);
// The LLC level's working set: LLC/2, or halfway between the readers' private caches below it
// (`private_bytes`, summed over the threads) and the LLC where those already hold LLC/2, so the
// set stays out of them. 16 threads of the Emerald Rapids host hold 32 MiB of L2, its measured
// LLC/2. `context = auto` sizes its LLC-resident contexts the same way.
std::int64_t llc_working_set_bytes(std::int64_t llc_bytes, std::int64_t private_bytes);
std::vector<WorkingSet> ceiling_working_sets(const Topology& topo, const std::vector<unsigned>& pus,
                                            int threads);

struct CeilingResult {
  CeilingKind kind = CeilingKind::kRead;
  std::string level;                 // ws level, "" for FMA
  std::int64_t working_set_bytes = 0;
  int threads = 0;
  std::int64_t iterations = 0;       // timed sweeps
  double ns_per_sweep = 0;           // best repetition (barrier: ns per crossing)
  std::int64_t bytes_read = 0;       // per sweep
  std::int64_t bytes_written = 0;    // per sweep
  std::int64_t flops = 0;            // per sweep (FMA: 2 per lane)
  double gbps = 0;                   // (read + written) / ns
  double gflops = 0;
  // Read only (else 0): each loop's best, gbps the fastest (see measure_bandwidth). plain: loads
  // alone, the hardware prefetchers' stream; window: the same loads with a prefetch of every line
  // kPrefetchWindowBytes ahead, with the attention kernels' hint (window_hint: sw_prefetch() when
  // measured), as they read their rows. No window where the kernels prefetch nothing.
  // two_streams: the plain loads over the two halves of each worker's part at once, a block of
  // each in turn (ceiling_read_streams), as the kernels read a tile's K rows and then its V rows;
  // four_streams: likewise over its four quarters.
  double plain_gbps = 0;
  double window_gbps = 0;
  SwPrefetch window_hint = SwPrefetch::kNone;
  double two_streams_gbps = 0;
  double four_streams_gbps = 0;
  ThpBacking thp;  // of the swept buffer, read after its first touch
  // FMA on 2+ workers: the slowest worker's own rate as % of the fastest's, in the repetition
  // reported, and that worker's index in the pool (-1: one worker). The burst's GFLOP/s ends with
  // its last worker; this says whether one worker (a core shared with a busy sibling: about 50)
  // or all of them (a clock drop: about 100) ran slow.
  double slowest_worker_pct = 100;
  int slowest_worker = -1;
  int bursts = 1;  // measure_fma_ceiling: the bursts taken, of which this is the fastest
};

struct CeilingOptions {
  double min_seconds = 0.2;   // timed duration per repetition
  int repetitions = 3;        // the best (fastest) repetition is reported, as STREAM does
  Placement placement{};
};

// Claimed piece of the read ceiling of a shared level (and of kernel_bench's overlap_threads/
// stream): microseconds of one core's stream, so the claim (one mostly uncontended atomic)
// costs nothing beside it.
inline constexpr std::int64_t kClaimChunkBytes = 64 * 1024;

// One bandwidth kernel on a buffer of `working_set_bytes` split evenly over the pool. Read at a
// shared level (the LLC, DRAM) on more than one worker claims 64-KiB chunks as the parallel
// decode does (harness/chunk_claims): each worker its own slice first, then what is left of the
// others', so the ceiling is not timed by the slowest worker when the decode is not.
// Read times four loops, their repetitions taken in turn, and reports the fastest: the plain
// loop, the same loop with the kernels' software prefetch window (its distance and, from
// sw_prefetch(), its hint; none under SwPrefetch::kNone), and the plain loop over two and over
// four streams.
// None always wins: on the Zen 5 guest the window cost the plain 2-thread DRAM stream a median
// 0.89x, yet in a state of that guest that came and went the plain stream fell to 21-33 GB/s
// while the windowed one and the decode kept 31-42, and the decode rows read 114-141% of a
// plain-only ceiling (results/epyc-zen5-2c-kvm-508m/ceiling-below-kernel/). On the Zen 3 guest
// one core read 1.13-1.19x as much DRAM from two streams as from one, the kernels' way
// (results/epyc-zen3-2c-kvm/read-streams/); on the Sapphire Rapids guest up to 1.3x as much
// again from four as from two (results/xeon-spr-16c-kvm/read-streams/).
CeilingResult measure_bandwidth(ThreadPool& pool, const Topology& topo, CeilingKind kind,
                                const WorkingSet& ws, const CeilingOptions& opt);

// A working set allocated and first-touched once, to measure its ceiling again and again
// without paying allocation and page faults each time (`kvbench run --ceiling-bracket` measures
// before and after every configuration). Each of the first `workers` workers of the pool owns
// one page-aligned region: read and write sweep it, copy copies its first half to its second.
class CeilingBuffer {
 public:
  // Throws HarnessError when the working set is too small for `workers` or cannot be allocated.
  CeilingBuffer(ThreadPool& pool, const Topology& topo, const WorkingSet& ws, int workers,
                const Placement& placement);
  const std::string& level() const noexcept { return level_; }
  bool shared() const noexcept { return shared_; }  // the LLC or DRAM: read in claimed chunks
  int workers() const noexcept { return workers_; }
  std::int64_t bytes() const noexcept { return region_bytes_ * workers_; }
  float* region(int worker) const noexcept;
  std::int64_t region_floats() const noexcept;
  const ThpBacking& thp() const noexcept { return thp_; }

 private:
  Buffer buffer_;
  std::string level_;
  bool shared_ = false;
  int workers_ = 0;
  std::int64_t region_bytes_ = 0;
  ThpBacking thp_;
};

// `kind` (not FMA) on `buffer` by the pool's first buffer.workers() workers (the rest idle); the
// pool must sit on the PUs of the one that first touched the buffer.
CeilingResult measure_bandwidth(ThreadPool& pool, CeilingKind kind, const CeilingBuffer& buffer,
                                const CeilingOptions& opt);
// "plain loop 27.10, T0 window 37.50, two streams 30.20, four streams 31.00 GB/s" for a read
// measured with more than the plain loop, "" otherwise.
std::string read_loops_text(const CeilingResult& r);
// Read bandwidth of the pool's first worker alone over the first `bytes` of one buffer, for each
// of `sizes` (ascending; rounded down to whole pages): one allocation of the largest, touched
// once, so a curve of many working sets costs one first touch (harness/llc_probe).
std::vector<CeilingResult> measure_read_curve(ThreadPool& pool, const Topology& topo,
                                              const std::vector<std::int64_t>& sizes,
                                              const CeilingOptions& opt);
// Peak FP32 FMA on registers, all workers.
CeilingResult measure_fma(ThreadPool& pool, const CeilingOptions& opt);
// The same on the pool's first `workers` workers (the rest idle): `kvbench run --ceiling-bracket`
// times a short burst of it around each benchmark, on the workers that benchmark runs on.
CeilingResult measure_fma(ThreadPool& pool, const CeilingOptions& opt, int workers);
// The FMA ceiling of a run (its ceiling_fma row, `kvbench ceilings`): bursts of measure_fma on all
// workers, another while every one so far had a worker below kEvenBurstPct of the fastest's rate,
// at most `max_bursts`; the fastest is returned. A core shared for a moment with a busy sibling
// thread then sets no roof: the Emerald Rapids host's 4-thread ceiling once read 348 GFLOP/s with a
// worker at half, and the brackets a second later 610-675. A longer slowing outlasts the bursts
// (on that host, every time it was tried). The brackets take one burst: they time the moment.
inline constexpr double kEvenBurstPct = 90;
inline constexpr int kFmaCeilingBursts = 4;
CeilingResult measure_fma_ceiling(ThreadPool& pool, const CeilingOptions& opt, int max_bursts = kFmaCeilingBursts);
// The same bursts (at least one), every one in the order taken (the run prints them all).
std::vector<CeilingResult> measure_fma_bursts(ThreadPool& pool, const CeilingOptions& opt,
                                              int max_bursts = kFmaCeilingBursts);
// The fastest of `bursts` (not empty), its `bursts` set to how many there were.
CeilingResult fastest_burst(const std::vector<CeilingResult>& bursts);
// The PU of a burst's slowest worker on a pool bound to `pus`; nullopt for one worker or a worker
// the pool did not bind.
std::optional<unsigned> slowest_worker_pu(const CeilingResult& fma, const std::vector<unsigned>& pus);
// "slowest worker 53% of the fastest's rate (PU 1)" for a burst of 2+ workers on a pool bound to
// `pus` (the worker's index where it is not bound), then ", the fastest of 4 bursts" where
// measure_fma_ceiling took more than one; "" for one worker.
std::string slowest_worker_text(const CeilingResult& fma, const std::vector<unsigned>& pus);
// The barrier a multi-threaded decode step crosses once per layer (ThreadPool::barrier with an
// arrival stamp, as harness/parallel_decode calls it), crossed back to back by every worker of
// the pool with nothing between: ns per crossing, the best repetition. All workers arrive
// together, so this is the least a layer's synchronisation costs, one round of cache-line
// transfers between the cores; a step of L layers cannot take less than L crossings on top of
// its work, however fast its kernel. One worker crosses alone (a few ns).
CeilingResult measure_barrier(ThreadPool& pool, const CeilingOptions& opt);
// The same crossing between every two of `pus` (OS indices), each pair on a pool of its own bound to
// just those two: result[i][j] = result[j][i] = ns per crossing of pus[i] and pus[j], 0 on the
// diagonal. Each crossing moves a cache line from one core to the other and back, so the matrix
// shows which PUs share a cache and how far apart the others are (a core-to-core latency map, as
// the decode's own barrier sees it). Throws HarnessError for fewer than two or unknown PUs.
std::vector<std::vector<double>> measure_barrier_pairs(const Topology& topo, const std::vector<unsigned>& pus,
                                                       const CeilingOptions& opt);
// Every kind at every working-set level, then FMA (measure_fma_ceiling), then the barrier.
std::vector<CeilingResult> measure_all_ceilings(ThreadPool& pool, const Topology& topo,
                                                const CeilingOptions& opt);

}  // namespace kvb
