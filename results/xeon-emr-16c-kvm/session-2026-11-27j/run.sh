#!/bin/bash
# Session 2026-11-27j: the attention kernel's own rate per core (kernel_bench floor/, rows in L2)
# with one core busy and with all 16 busy (one pinned copy per PU, started together), beside
# Qwen3-0.6B decode_step at its L2 / LLC / DRAM contexts at 1 and 16 threads, bracketed ceilings.
# One device call; main's carried release build (.carry/pack.tar.xz, see ../session-2026-11-27/).
tar xJf .carry/pack.tar.xz -C .carry
export LD_LIBRARY_PATH=$PWD/.carry/lib KVBENCH_MODELS_DIR=$PWD/configs/models
kb=.carry/bin/kernel_bench kv=.carry/bin/kvbench o=$OUT/j
mkdir -p $o
floor() {  # $1: output file; the floor rows at G = 1, 2, 8 with the rows in L2
  taskset -c "$2" $kb --benchmark_filter='floor/.*/ctx:512' --benchmark_repetitions=3 \
    --benchmark_min_time=0.2 --benchmark_format=csv > "$1" 2> "$1.err"
}
nproc > $o/nproc.txt; date -u >> $o/nproc.txt
floor $o/floor-1core.csv 0
for pu in $(seq 0 15); do floor $o/floor-16core-pu$pu.csv $pu & done; wait
floor $o/floor-1core-after.csv 0
date -u >> $o/nproc.txt
timeout 400 $kv run --llc 64MiB --model qwen3-0.6b --context auto --dtype fp32,fp16,bf16,int8 \
  --threads 1,16 --benchmarks decode_step --repetitions 3 --min-time 0.1 --ceiling-bracket \
  --out $o/decode.csv > $o/decode.log 2>&1; echo "decode rc=$?" >> $o/nproc.txt
date -u >> $o/nproc.txt
tar cJf $OUT/j.tar.xz -C $OUT j && rm -rf $o
