#!/bin/bash
# Session 2026-11-24d on the device: A/B of the shared next-tile prefetch for G > 4 (old = 24773c8,
# new = this session's binary), attention fp32 at G = 1 and 8, alternating rounds; then the gqa sweep.
export LD_LIBRARY_PATH=$PWD/.carry/lib
B=.carry/bin
log() { echo "# $(date -u +%FT%TZ) $*" | tee -a $OUT/commands.txt; }
lscpu > $OUT/lscpu.txt
for r in 1 2; do
  for b in old new; do
    bin=$B/kvbench; [ $b = old ] && bin=$B/kvbench_old
    log "$bin attention fp32 q 8,64 r$r"
    t0=$SECONDS
    $bin run --model qwen3-0.6b --q-heads 8,64 --kv-heads 8 --context 16384 --threads 1,16 --dtype fp32 --benchmarks attention --repetitions 3 --min-time 0.1 --ceiling-bracket --out $OUT/ab-$b-r$r.csv > /dev/null 2>$OUT/err-$b-$r.txt
    echo "  -> exit $? after $((SECONDS-t0)) s" | tee -a $OUT/commands.txt
  done
done
log "$B/kvbench gqa"
echo "$B/kvbench run --model qwen3-0.6b --q-heads 8,16,32,64 --kv-heads 8 --context 16384 --threads 1,16 --dtype all --benchmarks attention --repetitions 3 --min-time 0.1 --ceiling-bracket --out /root/out/emr/gqa.csv" >> $OUT/commands.txt
t0=$SECONDS
$B/kvbench run --model qwen3-0.6b --q-heads 8,16,32,64 --kv-heads 8 --context 16384 --threads 1,16 --dtype all --benchmarks attention --repetitions 3 --min-time 0.1 --ceiling-bracket --out $OUT/gqa.csv > /dev/null 2>$OUT/err-gqa.txt
echo "  -> exit $? after $((SECONDS-t0)) s" | tee -a $OUT/commands.txt
cd $OUT && tar czf emr.tgz *.csv *.txt && rm -f *.csv err-*.txt
