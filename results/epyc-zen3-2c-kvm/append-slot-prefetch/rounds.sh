#!/bin/bash
# rounds of modes 0,1,2 alternating, warm and cold, Qwen3-0.6B append, 1 thread
out=$1; rounds=$2; shift 2
mkdir -p $out
for r in $(seq 1 $rounds); do
  for m in ${MODES:-0 2 1}; do
    KVB_SLOT_PF=$m /work/main/build/kvbench run --model qwen3-0.6b --context 292,4093 --dtype fp32,fp16,bf16,int8 --threads 1 --benchmarks append --cache-state warm,cold --repetitions 3 --min-time 0.05 --ceilings none --llc 8MiB --out $out/r$r-m$m.csv "$@" > $out/r$r-m$m.log 2>&1 || echo "fail $r $m"
  done
done
