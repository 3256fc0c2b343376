#!/bin/bash
# The device call of this folder (2026-12-04): kvbench ab on the lent EMR host, main 6112b2c
# (bin/kvbench-base) against 0b4a597 (bin/kvbench: a token's cached bf16 K and V rows at head_dim
# 64/128/256 through two unrolled calls, each returning its +-0 flag), append of bf16 and fp16
# (the control), 32 layers, 1, 2 and 8 KV heads, 1000 positions, warm and fresh slots, 1 thread.
self=$(readlink -f "$0")
THREADS=${THREADS:-1} ROUNDS=${ROUNDS:-8} BUDGET=${BUDGET:-420} "$(dirname "$self")/../../device-ab.sh" bf16-token-unrolled "$self" -- \
  --base /tmp/pk/bin/kvbench-base --new /tmp/pk/bin/kvbench -- \
  --benchmark append --layers 32 --q-heads 8 --kv-heads 1,2,8 --head-dim 128 --context 1000 \
  --dtype bf16,fp16 --cache-state warm,fresh --llc 64MiB --ceilings none
