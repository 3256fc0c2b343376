#!/bin/bash
# 2026-12-01: fp16 encoder with compile-time row length (new) against bda426f (base), EMR host.
cd "$(dirname "$0")/.."
tar xJf .carry/pack.tar.xz -C .carry
export LD_LIBRARY_PATH=$PWD/.carry/lib KVBENCH_MODELS_DIR=$PWD/configs/models
nproc; date -u
.carry/bin/kernels_test --gtest_filter='CacheWrite*:*Codec*:*Prefill*' > $OUT/host-kernels-test.txt 2>&1; echo "kernels_test rc=$?"; tail -3 $OUT/host-kernels-test.txt
date -u
.carry/bin/kvbench.new ab --dir $OUT/ab-f16-host --base .carry/bin/kvbench.base --new .carry/bin/kvbench.new --rounds 10 --budget 220 -- --model qwen3-0.6b --kv-heads 8,1 --context 292,4095,4096,9363 --dtype fp16 --threads 1 --benchmarks append --repetitions 5 --min-time 0.05 --ceilings none --llc 64MiB > $OUT/ab-f16-host.log 2>&1; echo "ab rc=$?"
date -u
tail -3 $OUT/ab-f16-host.log
cd $OUT && tar cJf ab-f16-host.tar.xz ab-f16-host && rm -rf ab-f16-host
