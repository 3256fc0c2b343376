#!/bin/bash
# One binary built with a runtime switch (KVB_ROWLINES=0 takes StreamPrefetch's loop for the fp32
# V sweeps, as main before the row-lines change; 1 the per-row prefetches): arms alternate per
# round. Run on the device host from the repository root with .carry/{bin,lib} in place:
#   OUT=DIR bash results/xeon-emr-16c-kvm/session-2026-11-28/row-lines-ab.sh
set -u
OUT=${OUT:-/tmp/rl-ab}; mkdir -p "$OUT"
export LD_LIBRARY_PATH=$PWD/.carry/lib KVBENCH_MODELS_DIR=$PWD/configs/models
KB=$PWD/.carry/bin/kernel_bench KV=$PWD/.carry/bin/kvbench
ROUNDS=${ROUNDS:-6} KV_ROUNDS=${KV_ROUNDS:-3}
for i in $(seq 0 $((ROUNDS - 1))); do
  for j in 0 1; do
    m=$(( (i + j) % 2 ))
    echo -n "$i rl$m "
    KVB_ROWLINES=$m taskset -c 1 "$KB" --benchmark_filter='^fast/(fp32|fp16|int8)/ctx:16384$|^floor/fp32/G:[12]/ctx:512$' \
      --benchmark_min_time=0.5 --benchmark_format=csv 2>/dev/null | grep '^"f' | awk -F, '{printf "%s %s  ", $1, $4}'
    echo
  done
done > "$OUT/kernel-bench-rounds.txt"
for r in $(seq 1 "$KV_ROUNDS"); do
  for m in $( [ $((r % 2)) = 1 ] && echo "1 0" || echo "0 1"); do
    arm=$([ "$m" = 1 ] && echo on || echo off)
    KVB_ROWLINES=$m "$KV" run --model qwen3-0.6b --context auto --dtype fp32,int8 --threads 1,16 \
      --benchmarks decode_step --repetitions 3 --min-time 0.05 --ceiling-bracket --llc 64MiB \
      -o "$OUT/r${r}_$arm.csv" --force > "$OUT/r${r}_$arm.log" 2>&1
  done
done
lscpu > "$OUT/lscpu.txt"; date -u > "$OUT/date.txt"
# One archive: the device tool returns a limited count of files.
tar cJf /tmp/rl-ab.tar.xz -C "$OUT" . && find "$OUT" -type f -delete && mv /tmp/rl-ab.tar.xz "$OUT/"
