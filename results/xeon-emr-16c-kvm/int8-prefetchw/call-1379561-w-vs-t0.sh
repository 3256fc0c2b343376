#!/bin/bash
# EMR: the int8 append's slot request switched in one build (main 1379561, d0a1afb's fixed t0),
# PREFETCHW (new) against PREFETCHT0 (base, auto's choice on this host), each arm at four
# placements (KVBENCH_LAYOUT_SHIFT 0, 64, 128, 192), the same binaries in both arms.
cd "$(dirname "$0")/.."
export THREADS="${THREADS:-1 2 4}" ROUNDS=${ROUNDS:-8} BUDGET=${BUDGET:-160}
P=/tmp/pk/bin
K=$P/k0,$P/k64,$P/k128,$P/k192
bash results/device-ab.sh ${NAME:-w-vs-t0} .carry/call1.sh -- --base $K --new $K \
  --base-args '--slot-prefetch t0' --new-args '--slot-prefetch w' -- \
  --benchmark append --layers 32 --q-heads 16 --kv-heads 1,2,8 --head-dim 128 \
  --context 1000,4096 --dtype int8 --cache-state warm,fresh --ceilings none --llc 64MiB \
  --repetitions 3 --min-time 0.05
