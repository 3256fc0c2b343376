#!/bin/bash
# For a later device session (not run): prefill_copy on the EMR host, the source prefetch 8 rows
# ahead (this folder's change, NEW build) against 4 (main e95ba87, BASE build), each arm at four
# placements (KVBENCH_LAYOUT_SHIFT 0, 64, 128, 192; /tmp/s/relink.sh as in ../int8-prefetchw/),
# carried as /tmp/pk/bin/{b,n}{0,64,128,192} in .carry/pack.tar.xz.
cd "$(dirname "$0")/../../.."
export THREADS="${THREADS:-1 16}" ROUNDS=${ROUNDS:-8} BUDGET=${BUDGET:-170}
P=/tmp/pk/bin
bash results/device-ab.sh ${NAME:-source-ahead} "$0" -- \
  --base $P/b0,$P/b64,$P/b128,$P/b192 --new $P/n0,$P/n64,$P/n128,$P/n192 -- \
  --llc 64MiB --model qwen3-0.6b --context auto --dtype fp32,fp16,bf16,int8 \
  --benchmarks prefill_copy --repetitions 3 --min-time 0.1 --ceilings none
