#!/bin/bash
# append-ab.sh OUTDIR ROUNDS: kvbench append (+ append_memcpy) of the vendor-eval sweep's append
# shapes (32 layers, 32 query heads, 1 and 8 KV heads, head_dim 128) with two kvbench binaries,
# $KVDIR/kv_base and $KVDIR/kv_new, alternating (order flipped each round). Environment: DT
# (dtypes, default fp32,fp16,bf16,int8), KVH (KV heads, default 1,8), CONTEXTS (default
# 4096,16384), ARGS (more kvbench options, e.g. --threads 1,2). Writes OUTDIR/r<round>_<arm>.csv.
set -uo pipefail
out=${1:?usage: append-ab.sh OUTDIR ROUNDS}
rounds=${2:-4}
mkdir -p "$out"
export KVBENCH_MODELS_DIR=${KVBENCH_MODELS_DIR:-configs/models}
for ((i = 1; i <= rounds; i++)); do
  if ((i % 2)); then arms="base new"; else arms="new base"; fi
  for a in $arms; do
    "${KVDIR:-/tmp}/kv_$a" run --layers 32 --q-heads 32 --kv-heads ${KVH:-1,8} --head-dim 128 --context "${CONTEXTS:-4096,16384}" \
      --dtype "${DT:-fp32,fp16,bf16,int8}" --benchmarks append --cache-state warm --repetitions 3 --min-time 0.05 \
      --ceilings none ${ARGS:-} -o "$out/r${i}_$a.csv" --force > /dev/null 2>&1 || echo "round $i $a: exit $?"
  done
  echo "round $i done $(date -u +%T)"
done
