#!/bin/bash
# 2026-12-01 session 3, EMR host, call 3: int8 at 18158 positions head_major again (call 2's
# 16-thread rows ran disturbed), then the study position_major at 8 and 4 threads (what 230 s allow).
cd "$(dirname "$0")/.."
t0=$(date +%s)
tar xJf .carry/pack.tar.xz -C .carry
export LD_LIBRARY_PATH=$PWD/.carry/lib KVBENCH_MODELS_DIR=$PWD/configs/models
K=.carry/bin/kvbench
date -u
$K run --llc 64MiB --model qwen3-0.6b --context 18158 --dtype int8 --threads 16,8 \
  --benchmarks append,append_streaming --cache-state warm,fresh --layout head_major --repetitions 3 --min-time 0.05 \
  --ceiling-bracket -o $OUT/stream-hm-int8-again.csv > $OUT/stream-hm-int8-again.log 2>&1; echo "int8 rc=$?"; tail -1 $OUT/stream-hm-int8-again.log
date -u
left=$(( 230 - ($(date +%s) - t0) )); echo "pm gets ${left}s"
timeout $left $K run --llc 64MiB --model qwen3-0.6b --context auto --dtype fp32,fp16,bf16,int8 --threads 8,4 \
  --benchmarks append,append_streaming --cache-state warm,fresh --layout position_major --repetitions 3 --min-time 0.05 \
  --ceiling-bracket -o $OUT/stream-pm-248.csv > $OUT/stream-pm-248.log 2>&1; echo "pm rc=$?"; tail -1 $OUT/stream-pm-248.log
date -u
