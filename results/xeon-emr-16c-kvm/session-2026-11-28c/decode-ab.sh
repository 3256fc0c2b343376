#!/bin/bash
# decode_step A/B of a runtime kernel switch with one scratch kvbench: arms SWITCH=0 and SWITCH=1
# (or, without SWITCH, the options OFF_ARGS and ON_ARGS) alternate (order flipped each round) for
# ROUNDS rounds or until BUDGET seconds, each arm one `kvbench run` of decode_step at the DRAM
# context of the Qwen3-0.6B targets (CONTEXT per dtype) plus ARGS. Output:
# $OUT/ab/r<round>_<on|off>_<dtype>.csv in one archive, $OUT/ab.tar.xz.
# Example (EMR host): KV=.carry/kv_kl SWITCH=KVB_KLINES ARGS="--llc 64MiB --threads 1,16" \
#   OUT=$OUT bash results/xeon-emr-16c-kvm/session-2026-11-28c/decode-ab.sh
[ -f .carry/pack.tar.xz ] && tar xJf .carry/pack.tar.xz -C .carry
[ -d .carry/lib ] && export LD_LIBRARY_PATH=$PWD/.carry/lib
export KVBENCH_MODELS_DIR=$PWD/configs/models
mkdir -p "$OUT/ab"
end=$((SECONDS + ${BUDGET:-300}))
for ((i = 1; i <= ${ROUNDS:-6} && SECONDS < end; i++)); do
  if ((i % 2)); then arms="0 1"; else arms="1 0"; fi
  for a in $arms; do
    arm=$([ "$a" = 1 ] && echo on || echo off)
    if [ "$a" = 1 ]; then arm_args=${ON_ARGS:-}; else arm_args=${OFF_ARGS:-}; fi
    for dc in ${CONTEXT:-fp32:4682 fp16:9363}; do
      env ${SWITCH:+"$SWITCH=$a"} "$KV" run --model qwen3-0.6b --context "${dc#*:}" --dtype "${dc%%:*}" \
        --benchmarks decode_step --repetitions 5 --min-time 0.1 $ARGS $arm_args \
        --out "$OUT/ab/r${i}_${arm}_${dc%%:*}.csv" > /dev/null 2>&1 || echo "round $i $arm ${dc%%:*}: exit $?"
    done
  done
  echo "round $i done at ${SECONDS}s"
done
lscpu | grep -m2 "Model name\|^CPU(s)" > "$OUT/ab/machine.txt"
tar cJf "$OUT/ab.tar.xz" -C "$OUT" ab && rm -rf "$OUT/ab"
