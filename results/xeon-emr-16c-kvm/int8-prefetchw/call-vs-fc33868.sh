#!/bin/bash
# EMR A/B: int8 appends of main cee3c40 (9f5ca3c, 47f2dfe, 5e5976c, cde2591) against fc33868, the
# reference set's build; four placements per arm (KVBENCH_LAYOUT_SHIFT 0, 64, 128, 192).
cd "$(dirname "$0")/.."
export THREADS="${THREADS:-1 2 16}" ROUNDS=${ROUNDS:-8} BUDGET=${BUDGET:-165}
P=/tmp/pk/bin
bash results/device-ab.sh ${NAME:-i8-pfw} .carry/call1.sh -- \
  --base $P/b0,$P/b64,$P/b128,$P/b192 --new $P/n0,$P/n64,$P/n128,$P/n192 -- \
  --benchmark append --layers 32 --q-heads 16 --kv-heads 1,2,8 --head-dim 128 \
  --context 1000,4096 --dtype int8 --cache-state warm,fresh --ceilings none --llc 64MiB \
  --repetitions 3 --min-time 0.05
