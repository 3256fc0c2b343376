#!/bin/bash
# The device call of this folder (2026-12-04): kvbench ab on the lent EMR host, main 76cc162
# (bin/kvbench-base) against 3252334 (bin/kvbench: a token's bf16 K and V rows in one AVX512-BF16
# call, straight from append_token), append and append_streaming of bf16 and fp16 (the control),
# 32 layers, 1, 2 and 8 KV heads, 1000 positions, warm and fresh slots; 1 thread and 16.
self=$(readlink -f "$0")
BUDGET=${BUDGET:-200} "$(dirname "$self")/../../device-ab.sh" bf16-token "$self" -- \
  --base /tmp/pk/bin/kvbench-base --new /tmp/pk/bin/kvbench -- \
  --benchmark append,append_streaming --layers 32 --q-heads 8 --kv-heads 1,2,8 --head-dim 128 --context 1000 \
  --dtype bf16,fp16 --cache-state warm,fresh --llc 64MiB --ceilings none
