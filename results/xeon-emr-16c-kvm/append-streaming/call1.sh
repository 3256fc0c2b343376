#!/bin/bash
# 2026-12-01 session 3, EMR host, call 1: tests of the streaming AVX512-BF16 converter, its A/B
# against the integer rounding (both streaming), then the append / append_streaming study head_major.
cd "$(dirname "$0")/.."
tar xJf .carry/pack.tar.xz -C .carry
export LD_LIBRARY_PATH=$PWD/.carry/lib KVBENCH_MODELS_DIR=$PWD/configs/models
K=.carry/bin/kvbench
nproc; date -u; lscpu > $OUT/lscpu.txt
.carry/bin/kernels_test --gtest_filter='CacheWrite*:*Codec*' > $OUT/host-kernels-test.txt 2>&1; echo "kernels_test rc=$?"; tail -2 $OUT/host-kernels-test.txt
.carry/bin/harness_tests --gtest_filter='ParallelDecode*:Metadata*' > $OUT/host-harness-test.txt 2>&1; echo "harness_tests rc=$?"; tail -2 $OUT/host-harness-test.txt
date -u
$K ab --dir $OUT/ab-bf16-stream --base-env KVBENCH_AVX512_BF16=0 --new-env KVBENCH_AVX512_BF16=1 --rounds 8 --budget 110 -- \
  --model qwen3-0.6b --context auto --dtype bf16 --threads 1,16 --benchmarks append_streaming --cache-state warm,fresh \
  --repetitions 3 --min-time 0.05 --ceilings none --llc 64MiB > $OUT/ab-bf16-stream.log 2>&1; echo "ab rc=$?"; tail -2 $OUT/ab-bf16-stream.log
date -u
timeout 330 $K run --llc 64MiB --model qwen3-0.6b --context auto --dtype fp32,fp16,bf16,int8 --threads 1,16,2,4,8 \
  --benchmarks append,append_streaming --cache-state warm,fresh --layout head_major --repetitions 3 --min-time 0.05 \
  --ceiling-bracket -o $OUT/stream-hm.csv > $OUT/stream-hm.log 2>&1; echo "run rc=$?"; tail -2 $OUT/stream-hm.log
date -u
cd $OUT && tar cJf ab-bf16-stream.tar.xz ab-bf16-stream && rm -rf ab-bf16-stream/*.csv ab-bf16-stream/*.log
