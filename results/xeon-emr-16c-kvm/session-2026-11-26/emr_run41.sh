#!/bin/bash
# Session 2026-11-26, second call (main 3700e9d): the LLC probe twice more (repeatability), then
# decode_step on Qwen3-0.6B with --llc measure (the LLC one core uses, 128 MiB in the first call)
# at 1 and 16 threads, bracketed, against the same run with --llc auto (hwloc's 300 MiB).
tar xJf .carry/pack.tar.xz -C .carry
export LD_LIBRARY_PATH=$PWD/.carry/lib
o=$OUT/emr; mkdir -p $o
for i in 1 2; do .carry/bin/kvbench topo --llc measure 2>&1 | grep -E "^LLC:"; done > $o/probe-repeat.txt
for llc in measure auto; do
  s=$SECONDS
  .carry/bin/kvbench run --model qwen3-0.6b --context auto --dtype all --threads 1,16 \
    --benchmarks decode_step --repetitions 5 --min-time 0.1 --ceiling-bracket --llc $llc \
    --out $o/targets-llc-$llc.csv > $o/targets-llc-$llc.log 2>&1
  echo "llc $llc rc=$? $((SECONDS-s)) s" >> $o/probe-repeat.txt
done
cat $o/probe-repeat.txt; head -3 $o/targets-llc-measure.log
