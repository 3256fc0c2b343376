#!/bin/bash
# Session 2026-11-25 (eleventh), fifth call: the trimmed vendor-eval grid with main dbd082a (the
# same build as the 2-vCPU EMR VM's vendor-eval.csv), threads 1-16.
export LD_LIBRARY_PATH=$PWD/.carry/lib
mkdir -p $OUT/emr
timeout 270 .carry/bin/kvbench run --config configs/sweeps/vendor-eval.ini --out $OUT/emr/vendor-eval-dbd082a.csv \
  --context 4096,16384 --kv-heads 8,1 --threads 1,2,4,8,16 --cache-state warm \
  --benchmarks decode_step,append --dtype fp32,fp16,bf16,int8 --repetitions 3 --min-time 0.05 > $OUT/emr/vendor-eval.log 2>&1
echo "exit $?" >> $OUT/emr/vendor-eval.log
tail -3 $OUT/emr/vendor-eval.log
