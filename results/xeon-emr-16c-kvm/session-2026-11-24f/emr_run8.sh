#!/bin/bash
# Session 2026-11-24f, second call: the GQA rows the first call's time limit cut (G = 8 and G = 1
# for fp16, bf16, int8), main 27ef4b4.
export LD_LIBRARY_PATH=$PWD/.carry/lib
B=.carry/bin
log() { echo "# $(date -u +%FT%TZ) $*" | tee -a $OUT/commands.txt; }
log "$B/kvbench gqa-narrow"
echo "$B/kvbench run --model qwen3-0.6b --q-heads 8,64 --kv-heads 8 --context 16384 --threads 1,16 --dtype fp16,bf16,int8 --benchmarks attention --repetitions 3 --min-time 0.1 --ceiling-bracket --out /root/out/emr/gqa-narrow.csv" >> $OUT/commands.txt
t0=$SECONDS
timeout 300 $B/kvbench run --model qwen3-0.6b --q-heads 8,64 --kv-heads 8 --context 16384 --threads 1,16 --dtype fp16,bf16,int8 --benchmarks attention --repetitions 3 --min-time 0.1 --ceiling-bracket --out $OUT/gqa-narrow.csv > /dev/null 2>$OUT/err-gqa-narrow.txt
echo "  -> exit $? after $((SECONDS-t0)) s" | tee -a $OUT/commands.txt
cd $OUT && tar czf emr8.tgz *.csv *.txt && rm -f *.csv err-*.txt
