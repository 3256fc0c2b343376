#!/bin/bash
# The session's three device calls, as run (each as .carry/run.sh, with .carry/pack.tar.xz holding
# the scratch build of scratch-knobs.diff and the shared libraries): `calls.sh 1|2|3`.
#   1 (03:02-03:11 UTC): KVB_SLACK_KB off against 512, then against 128 (binary kvbench.slack).
#   2 (03:15-03:24 UTC): KVB_TAPER off/on, then KVB_SLACK_KB=512 on top of the taper (kvbench.scr).
#   3 (03:45-03:53 UTC): KVB_SLACK_KB off against 512 again, DRAM rows only (kvbench.scr).
set -u
cd "$(dirname "$0")/.."
tar xJf .carry/pack.tar.xz -C .carry
export LD_LIBRARY_PATH=$PWD/.carry/lib KVBENCH_MODELS_DIR=$PWD/configs/models
S="--dtype fp32,fp16,bf16,int8 --benchmarks decode_step --ceilings none --repetitions 3 --min-time 0.05 --llc 64MiB"
nproc; date
case "$1" in
1)
  K=.carry/bin/kvbench.slack
  C="--model qwen3-0.6b --context 292,9363 $S --threads 8,16"
  $K ab --dir $OUT/ab-slack512 --base $K --new $K --base-env KVB_SLACK_KB=0 --new-env KVB_SLACK_KB=512 --rounds 20 --budget 270 -- $C > $OUT/ab-slack512.txt 2>&1
  date
  $K ab --dir $OUT/ab-slack128 --base $K --new $K --base-env KVB_SLACK_KB=0 --new-env KVB_SLACK_KB=128 --rounds 20 --budget 170 -- $C > $OUT/ab-slack128.txt 2>&1
  dirs="ab-slack512 ab-slack128";;
2)
  K=.carry/bin/kvbench.scr
  C="--model qwen3-0.6b --context 9363 $S"
  $K ab --dir $OUT/ab-taper --new-env KVB_TAPER=1 --rounds 40 --budget 290 -- $C --threads 8,16 > $OUT/ab-taper.txt 2>&1
  date
  $K ab --dir $OUT/ab-taper-slack --base-env KVB_TAPER=1 --new-env KVB_TAPER=1,KVB_SLACK_KB=512 --rounds 40 --budget 190 -- $C --threads 16 > $OUT/ab-taper-slack.txt 2>&1
  dirs="ab-taper ab-taper-slack";;
3)
  K=.carry/bin/kvbench.scr
  C="--model qwen3-0.6b --context 9363 $S"
  $K ab --dir $OUT/ab-slack3 --new-env KVB_SLACK_KB=512 --rounds 60 --budget 450 -- $C --threads 8,16 > $OUT/ab-slack3.txt 2>&1
  dirs="ab-slack3";;
esac
date
cd $OUT && tar cJf session.tar.xz $dirs $(for d in $dirs; do echo $d.txt; done) && rm -rf $dirs
