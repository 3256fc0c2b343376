#!/bin/bash
# Note (d0a1afb): in this build --slot-prefetch t0 issued no request (README), so "t0" here ran as none.
# Zen 5 guest, 8 KV heads at 1 thread: fc33868 (T0) against main's --slot-prefetch t0; main w against t0.
B=/tmp/ref/kvbench-fc33868; K=/tmp/z5/k
run=(--benchmark append --layers 32 --q-heads 16 --kv-heads 8 --head-dim 128 --context 1000,4096
     --dtype int8 --cache-state warm,fresh --ceilings none --llc 16MiB --repetitions 3 --min-time 0.05 --threads 1 --pin pus:1)
${K}0 ab --dir ab-fc33868-vs-t0 --rounds 8 --base $B,$B-s64,$B-s128,$B-s192 --new ${K}0,${K}64,${K}128,${K}192 \
  --new-args '--slot-prefetch t0' -- "${run[@]}" > ab-fc33868-vs-t0.out 2>&1; echo "rc=$? $(date -u +%T)"
${K}0 ab --dir ab-w-vs-t0 --rounds 8 --base ${K}0,${K}64,${K}128,${K}192 --new ${K}0,${K}64,${K}128,${K}192 \
  --base-args '--slot-prefetch t0' --new-args '--slot-prefetch w' -- "${run[@]}" > ab-w-vs-t0.out 2>&1; echo "rc=$? $(date -u +%T)"
