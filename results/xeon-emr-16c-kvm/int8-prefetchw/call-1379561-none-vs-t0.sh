#!/bin/bash
# EMR, the same build and placements as call1.sh: no request (new) against PREFETCHT0 (base) at
# 1 and 2 threads, then PREFETCHW against PREFETCHT0 at 16 threads.
cd "$(dirname "$0")/.."
export ROUNDS=${ROUNDS:-8} BUDGET=${BUDGET:-160}
P=/tmp/pk/bin
K=$P/k0,$P/k64,$P/k128,$P/k192
run=(--benchmark append --layers 32 --q-heads 16 --kv-heads 1,2,8 --head-dim 128
     --context 1000,4096 --dtype int8 --cache-state warm,fresh --ceilings none --llc 64MiB
     --repetitions 3 --min-time 0.05)
THREADS="${THREADS_NONE:-1 2}" bash results/device-ab.sh ${NAME:-none-vs-t0} .carry/call2.sh -- --base $K --new $K \
  --base-args '--slot-prefetch t0' --new-args '--slot-prefetch none' -- "${run[@]}"
THREADS="${THREADS_W:-16}" bash results/device-ab.sh ${NAME2:-w-vs-t0-16} .carry/call2.sh -- --base $K --new $K \
  --base-args '--slot-prefetch t0' --new-args '--slot-prefetch w' -- "${run[@]}"
