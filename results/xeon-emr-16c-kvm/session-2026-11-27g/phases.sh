#!/bin/bash
# Per-worker phase times of the parallel decode (scratch builds of harness/parallel_decode.cc with
# rdtsc around merge, attention, append and barrier; KVB_PHASES=1 prints them per run to stderr),
# ROUNDS alternating rounds of every binary in BINS, rows SPECS ("dtype:context" ...), THREADS workers. Writes $OUT/phases/<bin>_<round>.{csv,err}.
tar xJf .carry/pack.tar.xz -C .carry
export LD_LIBRARY_PATH=$PWD/.carry/lib KVBENCH_MODELS_DIR=$PWD/configs/models KVB_PHASES=1
out="$OUT/phases"; mkdir -p "$out"
end=$((SECONDS + ${BUDGET:-540}))
for round in $(seq 1 "${ROUNDS:-3}"); do
  for b in $BINS; do
    [ $SECONDS -ge $end ] && break 2
    for spec in ${SPECS:-"fp32:219" "fp16:438" "int8:851" "fp32,int8:4682"}; do
      set -- ${spec/:/ }
      timeout $((end - SECONDS)) .carry/bin/kv_$b run --llc 64MiB --model qwen3-0.6b --benchmarks decode_step \
        --dtype $1 --context $2 --threads ${THREADS:-16} --ceilings none --repetitions 3 --min-time 0.1 \
        -o "$out/${b}_${round}_${1//,/-}_$2.csv" > /dev/null 2>> "$out/${b}_$round.err" || echo "kv_$b round $round $spec: rc $?"
    done
  done
done
tar cJf "$OUT/phases.tar.xz" -C "$OUT" phases && rm -rf "$out"
