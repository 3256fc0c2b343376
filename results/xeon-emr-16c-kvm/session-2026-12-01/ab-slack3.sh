#!/bin/bash
# Device call 3 (2026-12-01): the slack prefetch again, alone, DRAM rows only, many rounds.
set -u
cd "$(dirname "$0")/.."
tar xJf .carry/pack.tar.xz -C .carry
export LD_LIBRARY_PATH=$PWD/.carry/lib KVBENCH_MODELS_DIR=$PWD/configs/models
K=.carry/bin/kvbench.scr
C="--model qwen3-0.6b --context 9363 --dtype fp32,fp16,bf16,int8 --benchmarks decode_step --ceilings none --repetitions 3 --min-time 0.05 --llc 64MiB"
nproc; date
$K ab --dir $OUT/ab-slack3 --new-env KVB_SLACK_KB=512 --rounds 60 --budget 450 -- $C --threads 8,16 > $OUT/ab-slack3.txt 2>&1
date
grep "^| decode" $OUT/ab-slack3/compare.md | cut -d'|' -f3,4,9,11-19
cd $OUT && tar cJf session.tar.xz ab-slack3 ab-slack3.txt && rm -rf ab-slack3
