#!/bin/bash
# 2026-12-01 session 3, EMR host, call 2: the int8 rows call 1 ran out of time for, the cached
# append of d21e174 (base) against 3ea15ac (new), then the study position_major at 1 and 16 threads.
cd "$(dirname "$0")/.."
t0=$(date +%s)
tar xJf .carry/pack.tar.xz -C .carry
export LD_LIBRARY_PATH=$PWD/.carry/lib KVBENCH_MODELS_DIR=$PWD/configs/models
K=.carry/bin/kvbench
date -u
$K run --llc 64MiB --model qwen3-0.6b --context 18158 --dtype int8 --threads 1,16,2,4,8 \
  --benchmarks append,append_streaming --cache-state warm,fresh --layout head_major --repetitions 3 --min-time 0.05 \
  --ceiling-bracket -o $OUT/stream-hm-int8.csv > $OUT/stream-hm-int8.log 2>&1; echo "int8 rc=$?"; tail -1 $OUT/stream-hm-int8.log
date -u
$K ab --dir $OUT/ab-cached --base .carry/bin/kvbench-d21e174 --new $K --rounds 6 --budget 150 -- \
  --model qwen3-0.6b --context 9363 --dtype fp32,fp16,bf16,int8 --threads 1,16 --benchmarks append --cache-state warm,fresh \
  --repetitions 3 --min-time 0.05 --ceilings none --llc 64MiB > $OUT/ab-cached.log 2>&1; echo "ab rc=$?"; tail -2 $OUT/ab-cached.log
date -u
left=$(( 545 - ($(date +%s) - t0) )); echo "pm gets ${left}s"
timeout $left $K run --llc 64MiB --model qwen3-0.6b --context auto --dtype fp32,fp16,bf16,int8 --threads 1,16 \
  --benchmarks append,append_streaming --cache-state warm,fresh --layout position_major --repetitions 3 --min-time 0.05 \
  --ceiling-bracket -o $OUT/stream-pm.csv > $OUT/stream-pm.log 2>&1; echo "pm rc=$?"; tail -1 $OUT/stream-pm.log
date -u
cd $OUT && tar cJf ab-cached.tar.xz ab-cached && rm -rf ab-cached
