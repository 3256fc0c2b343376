#!/bin/bash
# 2026-12-02, EMR host: the append-streaming study position_major at 2 threads (the thread count
# the 2026-12-01 calls had no time left for), main 86b3fe1's build.
cd "$(dirname "$0")/.."
tar xJf .carry/pack.tar.xz -C .carry
export LD_LIBRARY_PATH=$PWD/.carry/lib KVBENCH_MODELS_DIR=$PWD/configs/models
K=.carry/bin/kvbench
date -u; lscpu | grep -E "Model name|^CPU\(s\)"
timeout 480 $K run --llc 64MiB --model qwen3-0.6b --context auto --dtype fp32,fp16,bf16,int8 --threads 2 \
  --benchmarks append,append_streaming --cache-state warm,fresh --layout position_major --repetitions 3 --min-time 0.05 \
  --ceiling-bracket -o $OUT/stream-pm-2.csv > $OUT/stream-pm-2.log 2>&1; echo "pm rc=$?"; tail -1 $OUT/stream-pm-2.log
date -u
