#!/bin/bash
# append-slope.sh OUTDIR ROUNDS: kvbench append (+ append_memcpy) of the MQA append shape (32 query
# heads, one KV head, head_dim 128) at 1, 8 and 32 layers and at a power-of-two context (4096) and
# one that is not (4100), 1 thread: the cost per layer is the slope from 8 to 32 layers, the
# 1-layer row (both rows L1-resident, rewritten in place) the cost without misses. Environment:
# KVBENCH (default build/kvbench). Writes OUTDIR/r<round>-L<layers>-c<context>.csv;
# append_slope_sum.py OUTDIR summarises.
set -uo pipefail
out=${1:?usage: append-slope.sh OUTDIR ROUNDS}
mkdir -p "$out"
for ((r = 1; r <= ${2:-3}; r++)); do
  for layers in 1 8 32; do
    for ctx in 4096 4100; do
      "${KVBENCH:-build/kvbench}" run --layers $layers --context $ctx --q-heads 32 --kv-heads 1 --head-dim 128 \
        --dtype fp32,fp16,bf16,int8 --benchmarks append --threads 1 --repetitions 5 --min-time 0.05 \
        --out "$out/r$r-L$layers-c$ctx.csv" > /dev/null 2>&1 || echo "round $r L$layers c$ctx: exit $?"
    done
  done
done
