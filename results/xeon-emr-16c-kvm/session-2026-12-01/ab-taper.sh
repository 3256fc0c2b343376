#!/bin/bash
# Device call 2 (2026-12-01 03:15-03:24 UTC): one scratch build (both knobs), KVB_TAPER off/on, then slack on top of taper.
set -u
cd "$(dirname "$0")/.."
tar xJf .carry/pack.tar.xz -C .carry
export LD_LIBRARY_PATH=$PWD/.carry/lib KVBENCH_MODELS_DIR=$PWD/configs/models
K=.carry/bin/kvbench.scr
C="--model qwen3-0.6b --context 9363 --dtype fp32,fp16,bf16,int8 --benchmarks decode_step --ceilings none --repetitions 3 --min-time 0.05 --llc 64MiB"
nproc; date
$K ab --dir $OUT/ab-taper --new-env KVB_TAPER=1 --rounds 40 --budget 290 -- $C --threads 8,16 > $OUT/ab-taper.txt 2>&1
date
$K ab --dir $OUT/ab-taper-slack --base-env KVB_TAPER=1 --new-env KVB_TAPER=1,KVB_SLACK_KB=512 --rounds 40 --budget 190 -- $C --threads 16 > $OUT/ab-taper-slack.txt 2>&1
date
for d in ab-taper ab-taper-slack; do echo "== $d"; grep "^| decode" $OUT/$d/compare.md | cut -d'|' -f3,5,9,11-18; done
cd $OUT && tar cJf session.tar.xz ab-taper ab-taper-slack ab-taper.txt ab-taper-slack.txt && rm -rf ab-taper ab-taper-slack
