#!/bin/bash
# Zen 4 guest, main b79fd19 (copied to /tmp/kv_swpf), 2026-11-27 17:14-17:28 UTC, nothing else running.
# one binary, three hints, order rotating per round
cd /work/main
hints=(t0 t2 none)
for r in 1 2 3 4; do
  for T in 1 2; do
  for i in 0 1 2; do
    h=${hints[$(( (i + r) % 3 ))]}
    /tmp/kv_swpf run --sw-prefetch $h --model qwen3-0.6b --context auto --llc 32MiB --dtype fp32,fp16,bf16,int8 --threads $T --benchmarks decode_step --repetitions 3 --min-time 0.1 -o /tmp/ab4/$h-t$T-r$r.csv > /tmp/ab4/$h-t$T-r$r.log 2>&1
  done
  done
done
