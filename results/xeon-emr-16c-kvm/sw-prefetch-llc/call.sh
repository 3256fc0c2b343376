#!/bin/bash
# 2026-12-02, EMR host: --sw-prefetch none against the default (T0 here) at Qwen3-0.6B's
# LLC-sized contexts, 16 and 1 threads, main 4b6bd3e's kvbench (decode kernels as in d447e68).
cd "$(dirname "$0")/.."
tar xJf .carry/pack.tar.xz -C .carry
export LD_LIBRARY_PATH=$PWD/.carry/lib KVBENCH_MODELS_DIR=$PWD/configs/models
nproc; date -u; lscpu > $OUT/lscpu.txt
timeout 540 .carry/bin/kvbench ab --dir $OUT/ab --new-args '--sw-prefetch none' --rounds 10 --budget 420 -- \
  --model qwen3-0.6b --context 146,292,438,851 --dtype fp32,fp16,int8 --threads 16,1 \
  --benchmarks decode_step --repetitions 3 --min-time 0.05 --ceilings none --llc 64MiB > $OUT/ab.log 2>&1
echo "ab rc=$?"; date -u; tail -3 $OUT/ab.log
cp $OUT/ab/compare.md $OUT/compare.md
cd $OUT && tar cJf ab.tar.xz ab && rm -rf ab
