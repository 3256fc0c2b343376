#!/bin/bash
# Zen 5 guest, 1 thread: main d0a1afb (--slot-prefetch auto = w here) against cee3c40 (w without the switch).
N=/tmp/d1/bin/n; K=/tmp/z7/k
${K}0 ab --dir ab-switch-vs-cee3c40-1t --rounds 8 --base ${N}0,${N}64,${N}128,${N}192 --new ${K}0,${K}64,${K}128,${K}192 -- \
  --benchmark append --layers 32 --q-heads 16 --kv-heads 1,2,8 --head-dim 128 --context 1000,4096 --dtype int8 \
  --cache-state warm,fresh --ceilings none --llc 16MiB --repetitions 3 --min-time 0.05 --threads 1 --pin pus:1 \
  > ab-switch-vs-cee3c40-1t.out 2>&1; echo "rc=$? $(date -u +%T)"
