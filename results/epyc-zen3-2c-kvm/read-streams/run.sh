#!/bin/bash
# Does one core read more from two streams than from one? kvbench's read ceilings (plain loop and
# window, the faster kept) and kernel_bench's read_streams/ rows (1, 2 and 4 streams per core, the
# DRAM pass of overlap_threads, 4 repetitions in random interleaving) in turn, ROUNDS times, at 1
# and 2 threads. usage: run.sh BUILD OUTDIR [ROUNDS]
set -euo pipefail
build=${1:?build folder}; out=${2:?output folder}; rounds=${3:-3}
mkdir -p "$out"
for r in $(seq 1 "$rounds"); do
  for t in 1 2; do
    date -u +%FT%TZ
    "$build/kvbench" ceilings --threads "$t" > "$out/ceilings-r$r-t$t.txt"
  done
  "$build/benchmarks/kernel_bench" --benchmark_filter='^read_streams/' --benchmark_repetitions=4 \
    --benchmark_enable_random_interleaving=true --benchmark_min_time=0.2 \
    --benchmark_out="$out/streams-r$r.json" > "$out/streams-r$r.txt" 2>&1
done
date -u +%FT%TZ
