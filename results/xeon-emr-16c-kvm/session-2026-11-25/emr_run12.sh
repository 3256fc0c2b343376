#!/bin/bash
# Session 2026-11-25 (seventh), third call: the vendor-eval slice with main f9251b2 (same build as the Zen 5's).
export LD_LIBRARY_PATH=$PWD/.carry/lib
B=.carry/bin
log() { echo "# $(date -u +%FT%TZ) $*" | tee -a $OUT/commands.txt; }
log "$B/kvbench vendor-eval (main f9251b2)"
cmd="$B/kvbench run --config configs/sweeps/vendor-eval.ini --out $OUT/vendor-eval.csv --context 4096,16384 --kv-heads 8,1 --threads 1,2,4,8,16 --cache-state warm --benchmarks decode_step,append --dtype fp32,fp16,bf16,int8 --repetitions 3 --min-time 0.05"
echo "${cmd//$OUT/\/root\/out\/emr}" >> $OUT/commands.txt
t0=$SECONDS
timeout 540 $cmd > /dev/null 2>$OUT/err-vendor.txt
echo "  -> exit $? after $((SECONDS-t0)) s" | tee -a $OUT/commands.txt
cd $OUT && tar czf emr12.tgz *.csv *.txt
