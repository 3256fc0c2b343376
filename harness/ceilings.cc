#include "harness/ceilings.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "harness/ceiling_kernels.h"
#include "harness/chunk_claims.h"
#include "harness/error.h"
#include "harness/pin_policy.h"
#include "harness/thread_pool.h"
#include "harness/tick_clock.h"
#include "harness/topology.h"
#include "kernels/sw_prefetch.h"

namespace kvb {
namespace {

constexpr std::int64_t kChunkAlign = 4096;  // bytes; each worker's slice starts on a page

double now_ns() {
  return std::chrono::duration<double, std::nano>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

struct NothingToPrepare {
  void operator()(std::int64_t) const noexcept {}
};

// Runs prepare(iterations) untimed, then body(worker, iterations) on all workers in one
// dispatch; returns the dispatch's elapsed ns.
template <class Body, class Prepare = NothingToPrepare>
double timed(ThreadPool& pool, std::int64_t iters, Body& body, Prepare prepare = {}) {
  prepare(iters);
  const double t0 = now_ns();
  pool.run([&](int w) { body(w, iters); });
  return now_ns() - t0;
}

struct Timing {
  std::vector<double> best_ns;  // per loop: best ns per iteration
  std::int64_t iters = 0;
};

// Doubles the iteration count until one run of loop 0 takes >= min_seconds/4, then times
// `repetitions` runs of enough iterations for min_seconds of each of `loops` loops, the loops in
// turn within each repetition so that each sees the same moments of a shared host. body(w, iters)
// runs the loop `*loop` names (the caller's variable, set here before every run).
template <class Body, class Prepare = NothingToPrepare>
Timing calibrate_and_time_loops(ThreadPool& pool, const CeilingOptions& opt, int loops, int* loop, Body& body,
                                Prepare prepare = {}) {
  const double target_ns = opt.min_seconds * 1e9;
  *loop = 0;
  std::int64_t iters = 1;
  double ns = timed(pool, iters, body, prepare);  // also warms caches / TLBs
  while (ns < target_ns / 4 && iters < (1LL << 40)) {
    iters *= 2;
    ns = timed(pool, iters, body, prepare);
  }
  iters = std::max<std::int64_t>(1, static_cast<std::int64_t>(iters * target_ns / std::max(ns, 1.0)));
  Timing t;
  // A preemption during calibration makes a short run look long and leaves too few iterations,
  // so the timed runs would measure the dispatch, not the memory: re-time with more iterations
  // until the best run really lasts about min_seconds.
  for (int attempt = 0; attempt < 4; ++attempt) {
    t.best_ns.assign(static_cast<std::size_t>(loops), 1e300);
    for (int r = 0; r < std::max(1, opt.repetitions); ++r) {
      for (*loop = 0; *loop < loops; ++*loop) {
        double& best = t.best_ns[static_cast<std::size_t>(*loop)];
        best = std::min(best, timed(pool, iters, body, prepare) / static_cast<double>(iters));
      }
    }
    const double fastest = *std::min_element(t.best_ns.begin(), t.best_ns.end());
    if (fastest * static_cast<double>(iters) >= target_ns / 2 || iters >= (1LL << 40)) break;
    iters = std::max<std::int64_t>(iters * 2, static_cast<std::int64_t>(iters * target_ns / std::max(fastest * static_cast<double>(iters), 1.0)));
  }
  t.iters = iters;
  return t;
}

// One loop: (best ns/iter, iters).
template <class Body, class Prepare = NothingToPrepare>
std::pair<double, std::int64_t> calibrate_and_time(ThreadPool& pool, const CeilingOptions& opt, Body& body,
                                                   Prepare prepare = {}) {
  int loop = 0;
  const Timing t = calibrate_and_time_loops(pool, opt, 1, &loop, body, prepare);
  return {t.best_ns[0], t.iters};
}

// The levels all readers share (the LLC, DRAM), where a worker that finishes early can take
// another's chunks without leaving its own cache.
bool shared_level(const Topology& topo, const std::string& level) {
  return level == "DRAM" || level == "L" + std::to_string(topo.last_level());
}

int stream_count(CeilingKind kind) { return kind == CeilingKind::kCopy ? 2 : 1; }

// Worker w < workers writes its `floats` starting at base + w * floats: with first_touch
// placement the pages land where that worker runs.
void first_touch(ThreadPool& pool, int workers, float* base, std::int64_t floats) {
  pool.run([&](int w) {
    if (w >= workers) return;
    float* p = base + static_cast<std::int64_t>(w) * floats;
    for (std::int64_t i = 0; i < floats; ++i) p[i] = 1.0f + static_cast<float>(i & 7) * 0.125f;
  });
}

// Times `kind` with worker w < workers sweeping `slice` floats at base + w * stride (copy: to
// the `slice` floats right after them); the pool's other workers idle. With `claim_chunks` (read
// only, more than one worker) the `iterations` sweeps of every slice are cut into 64-KiB chunks
// shared out by harness/chunk_claims, as the parallel decode shares a layer: each worker reads
// its own slice and, once done, what is left of the others'. The static split is timed by its
// slowest worker, which the decode no longer waits for: 16 threads of the EMR host decoded at
// 107-108% of it.
// Read with `all_loops` times the plain loop, the one with the kernels' prefetch window and the
// plain loop over two and over four streams (measure_bandwidth) and reports the fastest; without,
// the plain loop alone.
CeilingResult sweep(ThreadPool& pool, CeilingKind kind, int workers, float* base, std::int64_t stride,
                    std::int64_t slice, const CeilingOptions& opt, bool claim_chunks = false,
                    bool all_loops = false) {
  auto src = [&](int w) { return base + static_cast<std::int64_t>(w) * stride; };
  auto dst = [&](int w) { return src(w) + slice; };
  std::vector<float> sinks(static_cast<std::size_t>(workers) * 16);
  const bool claimed = claim_chunks && kind == CeilingKind::kRead && workers > 1;
  const std::int64_t chunk = kClaimChunkBytes / static_cast<std::int64_t>(sizeof(float));
  // The loops a read times, in turn. The window takes the kernels' hint (kernels/sw_prefetch.h);
  // where they prefetch nothing, there is none. Two (four) streams read the slice's halves
  // (quarters) side by side, a chunk of each per claim, so that all run on across claims as K and
  // V do across a kernel's tiles. Four: on the Sapphire Rapids guest one core read up to 1.3x as
  // much DRAM from four streams as from two (results/xeon-spr-16c-kvm/read-streams/).
  enum class ReadLoop { kPlain, kWindow, kTwoStreams, kFourStreams };
  const auto streams_of = [](ReadLoop l) {
    return l == ReadLoop::kFourStreams ? 4 : l == ReadLoop::kTwoStreams ? 2 : 1;
  };
  const SwPrefetch hint = sw_prefetch();
  const bool t2 = hint == SwPrefetch::kT2;
  std::vector<ReadLoop> read_loops{ReadLoop::kPlain};
  if (kind == CeilingKind::kRead && all_loops) {
    if (hint != SwPrefetch::kNone) read_loops.push_back(ReadLoop::kWindow);
    for (const ReadLoop l : {ReadLoop::kTwoStreams, ReadLoop::kFourStreams}) {
      if (slice / streams_of(l) > 0) read_loops.push_back(l);
    }
  }
  int loop = 0;  // index into read_loops
  auto read_streams = [&] { return streams_of(read_loops[static_cast<std::size_t>(loop)]); };
  // The floats of one stream: the slice, or its half or quarter (slices are whole pages, so the
  // parts cover it).
  auto part = [&] { return slice / read_streams(); };
  ChunkClaims claims;
  std::int64_t per_claims = 0;  // claims a slice takes: its chunks, or its parts' sets of chunks
  std::int64_t per_worker = 0;  // claims of one worker's block: its slice, `iterations` times
  auto prepare = [&](std::int64_t iters) {
    if (!claimed) return;
    per_claims = (part() + chunk - 1) / chunk;
    per_worker = iters * per_claims;
    claims = ChunkClaims::even(per_worker * workers, workers);
  };
  // Reads n floats from p on, or with S streams n from each of p + s * part() (s < S).
  auto read = [&](const float* p, std::int64_t n) {
    switch (read_loops[static_cast<std::size_t>(loop)]) {
      case ReadLoop::kWindow: return ceiling_read_fma(p, n, 0, kPrefetchWindowBytes, t2);
      case ReadLoop::kTwoStreams:
      case ReadLoop::kFourStreams: return ceiling_read_streams(p, part(), read_streams(), n, 0);
      case ReadLoop::kPlain: break;
    }
    return ceiling_read(p, n);
  };
  auto body = [&](int w, std::int64_t iters) {
    if (w >= workers) return;
    float acc = 0;
    if (claimed) {
      const std::int64_t extent = part();
      claims.claim(w, [&](std::int64_t k) {
        const int owner = static_cast<int>(k / per_worker);
        const std::int64_t begin = k % per_worker % per_claims * chunk;
        acc += read(src(owner) + begin, std::min(chunk, extent - begin));
      });
      sinks[static_cast<std::size_t>(w) * 16] = acc;
      return;
    }
    for (std::int64_t it = 0; it < iters; ++it) {
      switch (kind) {
        case CeilingKind::kRead:
          acc += read(src(w), part());
          break;
        case CeilingKind::kWrite: ceiling_write(src(w), slice, static_cast<float>(it)); break;
        case CeilingKind::kWriteNT: ceiling_write_nt(src(w), slice, static_cast<float>(it)); break;
        case CeilingKind::kCopy: ceiling_copy(src(w), dst(w), slice); break;
        case CeilingKind::kFma:
        case CeilingKind::kBarrier: break;
      }
    }
    sinks[static_cast<std::size_t>(w) * 16] = acc;  // keeps the reads observable
  };
  const int loops = static_cast<int>(read_loops.size());
  const Timing timing = calibrate_and_time_loops(pool, opt, loops, &loop, body, prepare);
  const double ns = *std::min_element(timing.best_ns.begin(), timing.best_ns.end());
  const std::int64_t iters = timing.iters;
  CeilingResult r;
  r.kind = kind;
  const std::int64_t streams = stream_count(kind);
  const std::int64_t per_stream = slice * static_cast<std::int64_t>(sizeof(float)) * workers;
  r.working_set_bytes = per_stream * streams;
  r.threads = workers;
  r.iterations = iters;
  r.ns_per_sweep = ns;
  r.bytes_read = kind == CeilingKind::kRead || kind == CeilingKind::kCopy ? per_stream : 0;
  r.bytes_written = kind == CeilingKind::kRead ? 0 : per_stream;
  const auto bytes = static_cast<double>(r.bytes_read + r.bytes_written);
  r.gbps = bytes / ns;
  if (kind == CeilingKind::kRead) {
    for (std::size_t i = 0; i < read_loops.size(); ++i) {
      const double gbps = bytes / timing.best_ns[i];
      switch (read_loops[i]) {
        case ReadLoop::kPlain: r.plain_gbps = gbps; break;
        case ReadLoop::kWindow: r.window_gbps = gbps; r.window_hint = hint; break;
        case ReadLoop::kTwoStreams: r.two_streams_gbps = gbps; break;
        case ReadLoop::kFourStreams: r.four_streams_gbps = gbps; break;
      }
    }
  }
  return r;
}

}  // namespace

const char* ceiling_benchmark_name(CeilingKind k) {
  switch (k) {
    case CeilingKind::kRead: return "ceiling_read";
    case CeilingKind::kWrite: return "ceiling_write";
    case CeilingKind::kWriteNT: return "ceiling_write_nt";
    case CeilingKind::kCopy: return "ceiling_copy";
    case CeilingKind::kFma: return "ceiling_fma";
    case CeilingKind::kBarrier: return "ceiling_barrier";
  }
  return "?";
}

std::int64_t dram_working_set_bytes(std::int64_t llc_bytes) {
  return std::max<std::int64_t>(4 * llc_bytes, std::int64_t{1} << 30);
}

std::int64_t llc_working_set_bytes(std::int64_t llc_bytes, std::int64_t private_bytes) {
  if (private_bytes >= llc_bytes / 2 && private_bytes < llc_bytes) return (private_bytes + llc_bytes) / 2;
  return llc_bytes / 2;
}

std::vector<WorkingSet> ceiling_working_sets(const Topology& topo, const std::vector<unsigned>& pus, int threads) {
  std::vector<WorkingSet> out;
  const int llc = topo.last_level();
  std::int64_t below_llc = 0;  // the private level under the LLC, summed over the readers
  for (int level = 1; level <= llc; ++level) {
    std::int64_t total = topo.cache_bytes_for(level, pus);  // summed over instances the PUs touch
    if (total <= 0) continue;
    // Private levels: cache_bytes_for sums instances touched, i.e. already x threads when
    // pinned; unpinned (empty pus) it sums all instances, so scale by the thread share.
    if (level != llc && pus.empty() && topo.pu_count() > 0) total = total * threads / topo.pu_count();
    if (level != llc) below_llc = total;
    // Half the capacity leaves room for code, stacks and the other stream of copy.
    out.push_back({"L" + std::to_string(level), level == llc ? llc_working_set_bytes(total, below_llc) : total / 2});
  }
  const std::int64_t llc_bytes = topo.llc_bytes_for(pus);
  out.push_back({"DRAM", dram_working_set_bytes(llc_bytes)});
  return out;
}

CeilingResult measure_bandwidth(ThreadPool& pool, const Topology& topo, CeilingKind kind, const WorkingSet& ws,
                                const CeilingOptions& opt) {
  if (kind == CeilingKind::kFma) return measure_fma(pool, opt);
  if (kind == CeilingKind::kBarrier) return measure_barrier(pool, opt);
  const int T = pool.size();
  // Per-worker slice in floats, page aligned; copy splits it into source and destination.
  const int streams = stream_count(kind);
  std::int64_t slice_bytes = ws.bytes / T / streams / kChunkAlign * kChunkAlign;
  if (slice_bytes <= 0)
    throw HarnessError("working set " + std::to_string(ws.bytes) + " bytes is too small for " + std::to_string(T) +
                       " threads");
  const std::int64_t slice = slice_bytes / static_cast<std::int64_t>(sizeof(float));
  Buffer buf(topo, static_cast<std::size_t>(slice_bytes) * T * streams, opt.placement);
  float* base = static_cast<float*>(buf.data());
  first_touch(pool, T, base, slice * streams);
  CeilingResult r = sweep(pool, kind, T, base, slice * streams, slice, opt, shared_level(topo, ws.level), true);
  r.level = ws.level;
  r.thp = buf.thp_backing();
  return r;
}

CeilingBuffer::CeilingBuffer(ThreadPool& pool, const Topology& topo, const WorkingSet& ws, int workers,
                             const Placement& placement)
    : level_(ws.level), shared_(shared_level(topo, ws.level)), workers_(workers) {
  if (workers < 1 || workers > pool.size())
    throw HarnessError("ceiling buffer for " + std::to_string(workers) + " workers on a pool of " +
                       std::to_string(pool.size()));
  // Both halves of a region stay page aligned, so copy's source and destination are too.
  region_bytes_ = ws.bytes / workers / (2 * kChunkAlign) * (2 * kChunkAlign);
  if (region_bytes_ <= 0)
    throw HarnessError("working set " + std::to_string(ws.bytes) + " bytes is too small for " +
                       std::to_string(workers) + " threads");
  buffer_ = Buffer(topo, static_cast<std::size_t>(region_bytes_) * workers, placement);
  first_touch(pool, workers, region(0), region_floats());
  thp_ = buffer_.thp_backing();
}

float* CeilingBuffer::region(int worker) const noexcept {
  return static_cast<float*>(buffer_.data()) + static_cast<std::int64_t>(worker) * region_floats();
}

std::int64_t CeilingBuffer::region_floats() const noexcept {
  return region_bytes_ / static_cast<std::int64_t>(sizeof(float));
}

CeilingResult measure_bandwidth(ThreadPool& pool, CeilingKind kind, const CeilingBuffer& buffer,
                                const CeilingOptions& opt) {
  if (kind == CeilingKind::kFma || kind == CeilingKind::kBarrier)
    throw HarnessError(std::string(ceiling_benchmark_name(kind)) + " needs no buffer");
  if (buffer.workers() > pool.size())
    throw HarnessError("ceiling buffer of " + std::to_string(buffer.workers()) + " workers on a pool of " +
                       std::to_string(pool.size()));
  const std::int64_t region = buffer.region_floats();
  CeilingResult r = sweep(pool, kind, buffer.workers(), buffer.region(0), region, region / stream_count(kind), opt,
                          buffer.shared(), true);
  r.level = buffer.level();
  r.thp = buffer.thp();
  return r;
}

std::string read_loops_text(const CeilingResult& r) {
  if (r.kind != CeilingKind::kRead || (r.window_gbps <= 0 && r.two_streams_gbps <= 0 && r.four_streams_gbps <= 0))
    return "";
  char text[128];
  std::string out;
  std::snprintf(text, sizeof text, "plain loop %.2f", r.plain_gbps);
  out = text;
  if (r.window_gbps > 0) {
    std::snprintf(text, sizeof text, ", %s window %.2f", r.window_hint == SwPrefetch::kT2 ? "T2" : "T0", r.window_gbps);
    out += text;
  }
  if (r.two_streams_gbps > 0) {
    std::snprintf(text, sizeof text, ", two streams %.2f", r.two_streams_gbps);
    out += text;
  }
  if (r.four_streams_gbps > 0) {
    std::snprintf(text, sizeof text, ", four streams %.2f", r.four_streams_gbps);
    out += text;
  }
  return out + " GB/s";
}

std::vector<CeilingResult> measure_read_curve(ThreadPool& pool, const Topology& topo,
                                              const std::vector<std::int64_t>& sizes,
                                              const CeilingOptions& opt) {
  std::vector<CeilingResult> out;
  if (sizes.empty()) return out;
  const std::int64_t largest = *std::max_element(sizes.begin(), sizes.end()) / kChunkAlign * kChunkAlign;
  if (largest <= 0) throw HarnessError("read curve: working sets must be at least one page");
  Buffer buf(topo, static_cast<std::size_t>(largest), opt.placement);
  float* base = static_cast<float*>(buf.data());
  const std::int64_t floats = largest / static_cast<std::int64_t>(sizeof(float));
  first_touch(pool, 1, base, floats);
  const ThpBacking thp = buf.thp_backing();
  for (std::int64_t bytes : sizes) {
    const std::int64_t slice = bytes / kChunkAlign * kChunkAlign / static_cast<std::int64_t>(sizeof(float));
    if (slice <= 0) continue;
    CeilingResult r = sweep(pool, CeilingKind::kRead, 1, base, floats, slice, opt);
    r.level = "curve";
    r.thp = thp;
    out.push_back(r);
  }
  return out;
}

CeilingResult measure_fma(ThreadPool& pool, const CeilingOptions& opt) {
  return measure_fma(pool, opt, pool.size());
}

CeilingResult measure_fma(ThreadPool& pool, const CeilingOptions& opt, int workers) {
  if (workers < 1 || workers > pool.size()) {
    throw HarnessError("ceiling_fma on " + std::to_string(workers) + " workers of a pool of " +
                       std::to_string(pool.size()));
  }
  const int T = workers;
  std::vector<float> sinks(static_cast<std::size_t>(T) * 16);
  std::vector<std::int64_t> flops(static_cast<std::size_t>(T) * 8);
  // Each worker's own ticks per iteration in every call, its own vector: the calls line up
  // across workers, since every call runs the body on each of them once.
  // Room for the calibration's calls and the timed ones, so no worker allocates between them.
  std::vector<std::vector<double>> own_ticks(static_cast<std::size_t>(T));
  for (auto& t : own_ticks) t.reserve(64);
  std::vector<std::int64_t> call_iters;  // written by worker 0
  call_iters.reserve(64);
  constexpr std::int64_t kRounds = 1 << 14;
  auto body = [&](int w, std::int64_t iters) {
    if (w >= T) return;
    const std::uint64_t start = ticks();
    std::int64_t f = 0;
    for (std::int64_t it = 0; it < iters; ++it) f += ceiling_fma(kRounds, &sinks[static_cast<std::size_t>(w) * 16]);
    own_ticks[static_cast<std::size_t>(w)].push_back(static_cast<double>(ticks() - start) /
                                                     static_cast<double>(std::max<std::int64_t>(iters, 1)));
    if (w == 0) call_iters.push_back(iters);
    flops[static_cast<std::size_t>(w) * 8] = f / std::max<std::int64_t>(iters, 1);
  };
  const auto [ns, iters] = calibrate_and_time(pool, opt, body);
  CeilingResult r;
  r.kind = CeilingKind::kFma;
  r.threads = T;
  r.iterations = iters;
  r.ns_per_sweep = ns;
  for (int w = 0; w < T; ++w) r.flops += flops[static_cast<std::size_t>(w) * 8];
  r.gflops = static_cast<double>(r.flops) / ns;
  if (T >= 2) {
    // Of the timed calls (the calibration's are shorter), the one whose last worker finished
    // soonest stands for the best repetition.
    std::size_t best = 0;
    double best_slowest = 1e300;
    for (std::size_t call = 0; call < call_iters.size(); ++call) {
      if (call_iters[call] != iters) continue;
      double slowest = 0;
      for (const auto& t : own_ticks) slowest = std::max(slowest, t[call]);
      if (slowest < best_slowest) best_slowest = slowest, best = call;
    }
    if (best_slowest < 1e300 && best_slowest > 0) {
      double fastest = best_slowest;
      for (int w = 0; w < T; ++w) {
        const double t = own_ticks[static_cast<std::size_t>(w)][best];
        fastest = std::min(fastest, t);
        if (t == best_slowest && r.slowest_worker < 0) r.slowest_worker = w;
      }
      r.slowest_worker_pct = 100.0 * fastest / best_slowest;
    }
  }
  return r;
}

std::vector<CeilingResult> measure_fma_bursts(ThreadPool& pool, const CeilingOptions& opt, int max_bursts) {
  std::vector<CeilingResult> bursts;
  do {
    bursts.push_back(measure_fma(pool, opt));
  } while (bursts.back().slowest_worker_pct < kEvenBurstPct && static_cast<int>(bursts.size()) < max_bursts);
  return bursts;
}

CeilingResult fastest_burst(const std::vector<CeilingResult>& bursts) {
  if (bursts.empty()) throw HarnessError("fastest_burst of no bursts");
  CeilingResult fastest = *std::max_element(bursts.begin(), bursts.end(), [](const CeilingResult& a, const CeilingResult& b) {
    return a.gflops < b.gflops;
  });
  fastest.bursts = static_cast<int>(bursts.size());
  return fastest;
}

CeilingResult measure_fma_ceiling(ThreadPool& pool, const CeilingOptions& opt, int max_bursts) {
  return fastest_burst(measure_fma_bursts(pool, opt, max_bursts));
}

std::optional<unsigned> slowest_worker_pu(const CeilingResult& fma, const std::vector<unsigned>& pus) {
  if (fma.slowest_worker < 0 || static_cast<std::size_t>(fma.slowest_worker) >= pus.size()) return std::nullopt;
  return pus[static_cast<std::size_t>(fma.slowest_worker)];
}

std::string slowest_worker_text(const CeilingResult& fma, const std::vector<unsigned>& pus) {
  if (fma.slowest_worker < 0) return "";
  const auto pu = slowest_worker_pu(fma, pus);
  char text[96];
  std::snprintf(text, sizeof text, "slowest worker %.0f%% of the fastest's rate (%s %u)", fma.slowest_worker_pct,
                pu ? "PU" : "worker", pu ? *pu : static_cast<unsigned>(fma.slowest_worker));
  if (fma.bursts < 2) return text;
  return std::string(text) + ", the fastest of " + std::to_string(fma.bursts) + " bursts";
}

CeilingResult measure_barrier(ThreadPool& pool, const CeilingOptions& opt) {
  auto body = [&](int, std::int64_t crossings) {
    for (std::int64_t i = 0; i < crossings; ++i) pool.barrier(ticks());
  };
  const auto [ns, crossings] = calibrate_and_time(pool, opt, body);
  CeilingResult r;
  r.kind = CeilingKind::kBarrier;
  r.threads = pool.size();
  r.iterations = crossings;
  r.ns_per_sweep = ns;
  return r;
}

std::vector<std::vector<double>> measure_barrier_pairs(const Topology& topo, const std::vector<unsigned>& pus,
                                                       const CeilingOptions& opt) {
  if (pus.size() < 2) throw HarnessError("barrier pairs need at least two PUs");
  std::vector<std::vector<double>> ns(pus.size(), std::vector<double>(pus.size(), 0.0));
  for (std::size_t i = 0; i < pus.size(); ++i) {
    for (std::size_t j = i + 1; j < pus.size(); ++j) {
      PinPolicy pair;
      pair.kind = PinKind::kExplicit;
      pair.pus = {pus[i], pus[j]};
      ThreadPool pool(topo, 2, pair);  // throws for an unknown or repeated PU
      ns[i][j] = ns[j][i] = measure_barrier(pool, opt).ns_per_sweep;
    }
  }
  return ns;
}

std::vector<CeilingResult> measure_all_ceilings(ThreadPool& pool, const Topology& topo, const CeilingOptions& opt) {
  std::vector<CeilingResult> out;
  for (const WorkingSet& ws : ceiling_working_sets(topo, pool.bound_pus(), pool.size()))
    for (CeilingKind k : {CeilingKind::kRead, CeilingKind::kWrite, CeilingKind::kWriteNT, CeilingKind::kCopy})
      out.push_back(measure_bandwidth(pool, topo, k, ws, opt));
  out.push_back(measure_fma_ceiling(pool, opt));
  out.push_back(measure_barrier(pool, opt));
  return out;
}

}  // namespace kvb
