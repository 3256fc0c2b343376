#!/bin/bash
# 2026-12-02, EMR host: chunk_decode's even share (new, main 411ea37) against 860421f's
# build (base; the same kernels, the old piece count), Qwen3-0.6B decode_step at 16 and 12
# threads. Changed there: 438 positions (16T: 24 -> 16 chunks; 12T: kept), 700 (16T 40 -> 32,
# 12T 40 -> 24); kept: 219 and 851 (controls).
cd "$(dirname "$0")/.."
tar xJf .carry/pack.tar.xz -C .carry
export LD_LIBRARY_PATH=$PWD/.carry/lib KVBENCH_MODELS_DIR=$PWD/configs/models
nproc; date -u
.carry/bin/harness_tests --gtest_filter='ChunkDecode.*:ParallelDecode.*' > $OUT/host-harness-test.txt 2>&1; echo "harness_tests rc=$?"; tail -1 $OUT/host-harness-test.txt
date -u
timeout 500 .carry/bin/kvbench.new ab --dir $OUT/ab-chunks --base .carry/bin/kvbench.base --new .carry/bin/kvbench.new \
  --rounds 12 --budget 380 -- --model qwen3-0.6b --context 219,438,700,851 --dtype fp32,fp16 --threads 16,12 \
  --benchmarks decode_step --repetitions 5 --min-time 0.05 --ceilings none --llc 64MiB > $OUT/ab-chunks.log 2>&1
echo "ab rc=$?"; date -u; tail -3 $OUT/ab-chunks.log
cp $OUT/ab-chunks/compare.md $OUT/ab-chunks-compare.md
cd $OUT && tar cJf ab-chunks.tar.xz ab-chunks && rm -rf ab-chunks
