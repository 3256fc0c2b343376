#!/bin/bash
# Note (d0a1afb): in this build --slot-prefetch t0 issued no request (README), so "t0" here ran as none.
# EMR, 8 KV heads at 1 thread: is the first call's 1.26x at fresh 1000-position slots the build or
# the machine? ab 1: fc33868 (T0, the reference set's build) against main 6f96831 run with
# --slot-prefetch t0 (the same request, the other build); ab 2: 6f96831 w against its t0.
cd "$(dirname "$0")/.."
export THREADS=1 ROUNDS=8 BUDGET=${BUDGET:-60}
P=/tmp/pk/bin
run=(--benchmark append --layers 32 --q-heads 16 --kv-heads 8 --head-dim 128 --context 1000,4096
     --dtype int8 --cache-state warm,fresh --ceilings none --llc 64MiB --repetitions 3 --min-time 0.05)
K=$P/k0,$P/k64,$P/k128,$P/k192
bash results/device-ab.sh fc33868-vs-t0 .carry/call3.sh -- --base $P/b0,$P/b64,$P/b128,$P/b192 --new $K \
  --new-args '--slot-prefetch t0' -- "${run[@]}"
bash results/device-ab.sh w-vs-t0-8kv .carry/call3.sh -- --base $K --new $K \
  --base-args '--slot-prefetch t0' --new-args '--slot-prefetch w' -- "${run[@]}"
