#!/bin/bash
# Note (d0a1afb): in this build --slot-prefetch t0 issued no request (README), so "t0" here ran as none.
# EMR: the int8 append's slot request, PREFETCHW (new) against PREFETCHT0 (base), one build
# (main 6f96831) at four placements (KVBENCH_LAYOUT_SHIFT 0, 64, 128, 192), both arms the same.
cd "$(dirname "$0")/.."
export THREADS="${THREADS:-1 2}" ROUNDS=${ROUNDS:-8} BUDGET=${BUDGET:-170}
P=/tmp/pk/bin
bash results/device-ab.sh ${NAME:-slot-w-vs-t0} .carry/call2.sh -- \
  --base $P/k0,$P/k64,$P/k128,$P/k192 --new $P/k0,$P/k64,$P/k128,$P/k192 \
  --base-args '--slot-prefetch t0' --new-args '--slot-prefetch w' -- \
  --benchmark append --layers 32 --q-heads 16 --kv-heads 1,2,8 --head-dim 128 \
  --context 1000,4096 --dtype int8 --cache-state warm,fresh --ceilings none --llc 64MiB \
  --repetitions 3 --min-time 0.05
