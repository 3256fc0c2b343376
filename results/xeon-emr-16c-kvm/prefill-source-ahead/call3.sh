#!/bin/bash
# 2026-12-05, EMR host, the third device call: call.sh's A/B (the same pack, scratch build and
# grid) at 16 threads, 32 rounds, where calls 1 and 2 left int8 at 1.043x and 1.073x the time with
# 8 rows ahead (3 of 8 and 3 of 16 rounds faster, neither significant), then at 2 threads (the
# Zen 5 guest's significant 0.856x was at 2), as many rounds as fit the budget.
cd "$(dirname "$0")/../../.."
date -u
export THREADS="${THREADS:-16 2}" ROUNDS=${ROUNDS:-32} BUDGET=${BUDGET:-220}
bash results/device-ab.sh source-ahead-32 "$0" -- \
  --base /tmp/pk/bin/kvbench-sa --base-env KVB_SA=4 --new /tmp/pk/bin/kvbench-sa --new-env KVB_SA=8 -- \
  --llc 64MiB --model qwen3-0.6b --context 9363 --dtype fp32,int8 \
  --benchmarks prefill_copy --repetitions 3 --min-time 0.1 --ceilings none
date -u
