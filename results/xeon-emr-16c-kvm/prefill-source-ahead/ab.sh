#!/bin/bash
# The A/B of every call here: prefill_copy with the bulk encoders' fp32 source prefetched 8 rows
# ahead (new, KVB_SA=8) against 4 (base), both arms the scratch build kvbench-sa (scratch.patch),
# through results/device-ab.sh. Qwen3-0.6B, fp32 and int8 at 9363 positions (2.1 GB of fp32 source
# per step). Each call sets NAME (the folder it returns), THREADS, ROUNDS and BUDGET.
cd "$(dirname "$0")/../../.."
date -u
bash results/device-ab.sh "${NAME:?}" "$0" -- \
  --base /tmp/pk/bin/kvbench-sa --base-env KVB_SA=4 --new /tmp/pk/bin/kvbench-sa --new-env KVB_SA=8 -- \
  --llc 64MiB --model qwen3-0.6b --context 9363 --dtype fp32,int8 \
  --benchmarks prefill_copy --repetitions 3 --min-time 0.1 --ceilings none
date -u
