#!/bin/bash
# decode-bin-ab.sh OUTDIR ROUNDS: kvbench decode_step (Qwen3-0.6B, 1 GiB of cache per dtype: the
# DRAM contexts of the targets step) with two kvbench binaries, $KVDIR/kv_base and $KVDIR/kv_new,
# alternating (order flipped each round). Environment: CONTEXT (dtype:context pairs), THREADS
# (default 1,2), ARGS (more kvbench options). Writes OUTDIR/r<round>_<arm>_<dtype>.csv; summarise
# with decode_bin_ab_sum.py OUTDIR.
set -uo pipefail
out=${1:?usage: decode-bin-ab.sh OUTDIR ROUNDS}
mkdir -p "$out"
export KVBENCH_MODELS_DIR=${KVBENCH_MODELS_DIR:-configs/models}
for ((i = 1; i <= ${2:-4}; i++)); do
  if ((i % 2)); then arms="base new"; else arms="new base"; fi
  for a in $arms; do
    for dc in ${CONTEXT:-fp32:4682 fp16:9363 bf16:9363 int8:18157}; do
      "${KVDIR:-/tmp}/kv_$a" run --model qwen3-0.6b --context "${dc#*:}" --dtype "${dc%%:*}" \
        --benchmarks decode_step --threads "${THREADS:-1,2}" --repetitions 5 --min-time 0.1 \
        --ceilings none ${ARGS:-} -o "$out/r${i}_${a}_${dc%%:*}.csv" --force > /dev/null 2>&1 ||
        echo "round $i $a ${dc%%:*}: exit $?"
    done
  done
  echo "round $i done $(date -u +%T)"
done
