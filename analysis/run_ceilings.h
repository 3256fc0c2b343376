// Each run's own measured ceilings, looked up for a kernel row: machines drift between runs, so
// a kernel is only ever judged against a ceiling of its own run (same run_id, threads and pin).
#pragma once
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "analysis/machine_results.h"

namespace kvb {

class RunCeilings {
 public:
  explicit RunCeilings(const MachineResults& m);

  // Best GB/s of `ceiling` (e.g. "ceiling_read", "ceiling_copy") at `level` over the buffer sizes
  // measured in `row`'s run at `row`'s thread count and pinning; nullopt when not measured.
  std::optional<double> gbps(const std::string& ceiling, const ResultRow& row, const std::string& level) const;

  // The read ceiling `row` is judged against at `level`: its own ceiling_gbps column when `level`
  // is the row's ws_level (kvbench run wrote it from the same run), else the lookup above.
  std::optional<double> read_gbps(const ResultRow& row, const std::string& level) const;
  // Likewise for the copy ceiling (the write families' ceiling_gbps), but only from a bracketed
  // row's own column: older files wrote the read ceiling there.
  std::optional<double> copy_gbps(const ResultRow& row, const std::string& level) const;

  // Best GFLOP/s of ceiling_fma and ceiling_fma_end (its start and its end) in `row`'s run at its
  // thread count and pinning; nullopt when not measured.
  std::optional<double> fma_gflops(const ResultRow& row) const;
  // Least ns per crossing of ceiling_barrier (the per-layer barrier crossed back to back) in
  // `row`'s run at its thread count and pinning; nullopt when not measured (files before it).
  std::optional<double> barrier_ns(const ResultRow& row) const;
  // Likewise for ceiling_barrier_end, the crossing measured again after the run's last benchmark
  // (runs since 2026-12-02g); nullopt where the run has none.
  std::optional<double> barrier_end_ns(const ResultRow& row) const;
  // A ceiling a run measured at both ends: its start's and its end's value.
  struct CeilingEnds {
    std::string run_id, pin;
    int threads = 0;
    double start = 0, end = 0;
  };
  // Every (run, threads, pin) that measured the crossing at both ends (ns), in run_id order, each
  // run's by thread count.
  std::vector<CeilingEnds> crossing_ends() const;
  // Likewise the FMA ceiling (GFLOP/s; ceiling_fma, ceiling_fma_end).
  std::vector<CeilingEnds> fma_ends() const;
  // The median of every FMA burst `row`'s run took on its workers (threads and pinning): its
  // ceiling's at both ends and each bracketed row's two. The run's fastest burst is an extreme of
  // many: one core of the EMR host burst at 171-199 GFLOP/s (median 180) in 95% of its 192 bursts
  // around 96 rows of one run and at 204 at its end, so held to that a row at 178 read as slowed.
  // nullopt without bursts.
  std::optional<double> usual_fma_gflops(const ResultRow& row) const;
  // A `--ceiling-bracket` row's core bracket (core_before_gflops, core_after_gflops): its slower
  // end as a fraction of its run's usual FMA rate (above); nullopt for rows without a core bracket.
  std::optional<double> core_fraction(const ResultRow& row) const;
  // The same slower end as a fraction of the fastest the same workers were seen to run FMAs in
  // its run (its FMA ceiling at either end of the run, or either end of the bracket): a run whose
  // every burst at a thread count ran slowed shares that state with its median, not its ceiling.
  std::optional<double> core_fraction_of_ceiling(const ResultRow& row) const;
  // "core at 52% of its run's usual FMA rate" where core_fraction is below 1 - kCeilingDriftFlag,
  // else "core at 60% of its FMA ceiling" where core_fraction_of_ceiling is below 1 -
  // kCoreStateFlag, and "a worker at 50% of the fastest's FMA rate (PU 7)" where a burst's slowest
  // worker ran that far below its fastest (core_slowest_pct, core_slowest_pu), else "": the
  // workers, or one of them, ran slower while the row was measured (a clock drop, a neighbour on
  // the sibling hardware thread), which a memory bracket does not see; the row then understates
  // its kernel.
  std::string core_slowed_note(const ResultRow& row) const;

 private:
  // The groups in both maps (keyed as below), each with its two values.
  std::vector<CeilingEnds> both_ends(const std::map<std::string, double>& start,
                                     const std::map<std::string, double>& end) const;

  std::map<std::string, double> best_;  // ceiling|run_id|threads|pin|level -> GB/s
  std::map<std::string, double> fma_start_;  // run_id|threads|pin -> GFLOP/s, ceiling_fma
  std::map<std::string, double> fma_end_;    // likewise, ceiling_fma_end
  std::map<std::string, double> usual_fma_;  // run_id|threads|pin -> median burst GFLOP/s
  std::map<std::string, double> barrier_;  // run_id|threads|pin -> ns per crossing
  std::map<std::string, double> barrier_end_;  // likewise, ceiling_barrier_end
  std::map<std::string, CeilingEnds> groups_;  // run_id|threads|pin -> its run, threads, pin
};

// A `kvbench run --ceiling-bracket` row's ceiling_after_gbps / ceiling_before_gbps - 1: how far
// its own ceiling moved while it was measured; nullopt for rows without a bracket.
std::optional<double> ceiling_drift(const ResultRow& row);
// Brackets whose larger end exceeds the smaller by more than this are flagged in the report, and
// core brackets whose slower end is this far below the run's usual FMA rate.
inline constexpr double kCeilingDriftFlag = 0.10;
// Core brackets whose slower end is this far below the run's FMA ceiling are flagged too: beyond
// most of the spread of one core's bursts in one run (171-204 GFLOP/s on the EMR host, 0.84x),
// short of a core shared with a sibling thread (half).
inline constexpr double kCoreStateFlag = 0.25;
// "ceiling moved -23%" for a flagged row, else "".
std::string ceiling_moved_note(const ResultRow& row);
// For the two rows of a time ratio (GQA, append), both run with --ceiling-bracket: "ceiling 80
// GB/s, its partner's 52" when their own ceilings differ by more than kCeilingDriftFlag, else "".
// Their ratio then compares the machine in two states (a shared host's bandwidth moved between).
std::string pair_ceilings_note(const ResultRow& row, const ResultRow& partner);

}  // namespace kvb
