#!/bin/bash
# Zen 4 guest: the same measurement as ../../xeon-emr-16c-kvm/session-2026-11-27j/run.sh at 1 and 2 cores.
kb=build/benchmarks/kernel_bench kv=build/kvbench o=${OUT:?a folder for the files}
mkdir -p $o
floor() {
  taskset -c "$2" $kb --benchmark_filter='floor/.*/ctx:512' --benchmark_repetitions=3 \
    --benchmark_min_time=0.2 --benchmark_format=csv > "$1" 2> "$1.err"
}
date -u > $o/dates.txt
floor $o/floor-1core.csv 0
for pu in 0 1; do floor $o/floor-2core-pu$pu.csv $pu & done; wait
floor $o/floor-1core-after.csv 0
date -u >> $o/dates.txt
$kv run --model qwen3-0.6b --context auto --dtype fp32,fp16,bf16,int8 --threads 1,2 \
  --benchmarks decode_step --repetitions 3 --min-time 0.1 --ceiling-bracket \
  --out $o/decode.csv > $o/decode.log 2>&1; echo "decode rc=$?" >> $o/dates.txt
date -u >> $o/dates.txt
