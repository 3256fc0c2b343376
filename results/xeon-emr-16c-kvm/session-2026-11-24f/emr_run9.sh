#!/bin/bash
# Session 2026-11-24f, third call: the targets sweep with main 35c9b9a.
export LD_LIBRARY_PATH=$PWD/.carry/lib
B=.carry/bin
log() { echo "# $(date -u +%FT%TZ) $*" | tee -a $OUT/commands.txt; }
log "$B/kvbench targets"
echo "$B/kvbench run --model qwen3-0.6b --context auto --dtype all --threads 1,2,4,8,16 --benchmarks decode_step,append,prefill_copy --repetitions 5 --min-time 0.1 --ceiling-bracket --out /root/out/emr/targets.csv" >> $OUT/commands.txt
t0=$SECONDS
timeout 560 $B/kvbench run --model qwen3-0.6b --context auto --dtype all --threads 1,2,4,8,16 --benchmarks decode_step,append,prefill_copy --repetitions 5 --min-time 0.1 --ceiling-bracket --out $OUT/targets.csv > /dev/null 2>$OUT/err-targets.txt
echo "  -> exit $? after $((SECONDS-t0)) s" | tee -a $OUT/commands.txt
cd $OUT && tar czf emr9.tgz *.csv *.txt && rm -f *.csv err-*.txt
