#!/bin/bash
# Device call 1 (2026-12-01 03:02-03:11 UTC): one scratch build, KVB_SLACK_KB off against 512 and 128.
set -u
cd "$(dirname "$0")/.."
tar xJf .carry/pack.tar.xz -C .carry
export LD_LIBRARY_PATH=$PWD/.carry/lib KVBENCH_MODELS_DIR=$PWD/configs/models
B=.carry/bin
COMMON="--model qwen3-0.6b --context 292,9363 --dtype fp32,fp16,bf16,int8 --threads 8,16 --benchmarks decode_step --ceilings none --repetitions 3 --min-time 0.05 --llc 64MiB"
nproc; date
$B/kvbench.slack ab --dir $OUT/ab-slack512 --base $B/kvbench.slack --new $B/kvbench.slack --base-env KVB_SLACK_KB=0 --new-env KVB_SLACK_KB=512 --rounds 20 --budget 270 -- $COMMON > $OUT/ab-slack512.txt 2>&1
date
$B/kvbench.slack ab --dir $OUT/ab-slack128 --base $B/kvbench.slack --new $B/kvbench.slack --base-env KVB_SLACK_KB=0 --new-env KVB_SLACK_KB=128 --rounds 20 --budget 170 -- $COMMON > $OUT/ab-slack128.txt 2>&1
date
cd $OUT && tar cJf session.tar.xz ab-slack512 ab-slack128 ab-slack512.txt ab-slack128.txt && rm -rf ab-slack512 ab-slack128
