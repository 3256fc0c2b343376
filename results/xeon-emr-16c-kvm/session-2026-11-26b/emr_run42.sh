#!/bin/bash
# Session 2026-11-26b, one call (main cd27e4f, whose analysis reads .csv.xz and links
# libboost_iostreams): the trimmed vendor-eval grid at 1, 2, 4, 8 and 16 threads with the kernels
# of the Zen 5 guest's reference set (results/epyc-zen5-2c-kvm-508m/, 195afba: no kernel change
# since), the ceilings and the default run beside it, and two scratch programs (not committed):
# mb (ns per attention_partial call, one KV head, L1/L2-resident) and ideal (a bare AVX-512 score
# loop and V loop of the same shape), for the kernel-vs-ideal comparison in the README.
tar xJf .carry/pack.tar.xz -C .carry
export LD_LIBRARY_PATH=$PWD/.carry/lib
o=$OUT/emr; mkdir -p $o
log() { echo "# $(date -u +%FT%TZ) $*" >> $o/commands.txt; echo "$*" >> $o/commands.txt; }
run() { log "$*"; local s=$SECONDS; "$@"; local rc=$?; echo "  -> exit $rc after $((SECONDS-s)) s" >> $o/commands.txt; return $rc; }
run .carry/bin/kvbench topo > $o/topo.txt 2>&1
run .carry/bin/kvbench ceilings --threads 1 > $o/ceilings-1t.txt 2>&1
run .carry/bin/kvbench ceilings --threads all > $o/ceilings-all.txt 2>&1
run .carry/bin/kvbench run --out $o/default.csv > $o/default.log 2>&1
run .carry/bin/kvbench run --config configs/sweeps/vendor-eval.ini --context 4096,16384 --kv-heads 8,1 \
  --threads 1,2,4,8,16 --cache-state warm --benchmarks decode_step,append --dtype fp32,fp16,bf16,int8 \
  --repetitions 3 --min-time 0.05 --out $o/vendor-eval.csv > $o/vendor-eval.log 2>&1
{
  for r in 1 2; do
    for g in 1 2 8; do taskset -c 0 .carry/bin/mb_base $g fp32; done
    taskset -c 0 .carry/bin/mb_base 2 fp16; taskset -c 0 .carry/bin/mb_base 2 int8
    taskset -c 0 .carry/bin/ideal
  done
} > $o/kernel-vs-ideal.txt 2>&1
cat $o/commands.txt; tail -3 $o/vendor-eval.log; grep -E "fp32 G=1|T=512|T= 64|scores" $o/kernel-vs-ideal.txt | head -20
