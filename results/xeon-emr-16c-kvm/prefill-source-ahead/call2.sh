#!/bin/bash
# 2026-12-05, EMR host, the second device call: call.sh's A/B again (the same pack, scratch build
# and grid) with 16 rounds per thread count, to settle call.sh's 8 (fp32 at 1 thread 1.057x the
# time with 8 rows ahead, 6 of 8 rounds slower, p 0.12).
cd "$(dirname "$0")/../../.."
date -u
export THREADS="${THREADS:-1 16}" ROUNDS=${ROUNDS:-16} BUDGET=${BUDGET:-360}
bash results/device-ab.sh source-ahead-16 "$0" -- \
  --base /tmp/pk/bin/kvbench-sa --base-env KVB_SA=4 --new /tmp/pk/bin/kvbench-sa --new-env KVB_SA=8 -- \
  --llc 64MiB --model qwen3-0.6b --context 9363 --dtype fp32,int8 \
  --benchmarks prefill_copy --repetitions 3 --min-time 0.1 --ceilings none
date -u
