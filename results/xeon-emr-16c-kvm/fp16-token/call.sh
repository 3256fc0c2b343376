#!/bin/bash
# The device call of this folder (2026-12-04): kvbench ab on the lent EMR host, main b054e16
# (bin/kvbench-base) against 70679d9 (bin/kvbench: a token's fp16 K and V rows through one lean
# encoder call, straight from append_token), append of fp16 and bf16 (the control), 32 layers, 1, 2
# and 8 KV heads, 1000 positions, warm and fresh slots, 1 thread.
self=$(readlink -f "$0")
THREADS=${THREADS:-1} ROUNDS=${ROUNDS:-8} BUDGET=${BUDGET:-420} "$(dirname "$self")/../../device-ab.sh" fp16-token "$self" -- \
  --base /tmp/pk/bin/kvbench-base --new /tmp/pk/bin/kvbench -- \
  --benchmark append --layers 32 --q-heads 8 --kv-heads 1,2,8 --head-dim 128 --context 1000 \
  --dtype fp16,bf16 --cache-state warm,fresh --llc 64MiB --ceilings none
