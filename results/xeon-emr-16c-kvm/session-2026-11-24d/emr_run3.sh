#!/bin/bash
# Session 2026-11-24d, third call: eight more alternating rounds of old (24773c8) and new
# (54e5353), attention fp32 at G = 8 only (64 query heads over 8 KV heads), 1 and 16 threads.
export LD_LIBRARY_PATH=$PWD/.carry/lib
B=.carry/bin
log() { echo "# $(date -u +%FT%TZ) $*" | tee -a $OUT/commands.txt; }
for r in 6 7 8 9 10 11 12 13; do
  order="new old"; [ $((r % 2)) = 1 ] && order="old new"  # alternate which goes first
  for b in $order; do
    bin=$B/kvbench; [ $b = old ] && bin=$B/kvbench_old
    log "$bin attention fp32 q 64 r$r"
    t0=$SECONDS
    $bin run --model qwen3-0.6b --q-heads 64 --kv-heads 8 --context 16384 --threads 1,16 --dtype fp32 --benchmarks attention --repetitions 3 --min-time 0.1 --ceiling-bracket --out $OUT/ab-$b-r$r.csv > /dev/null 2>$OUT/err-$b-$r.txt
    echo "  -> exit $? after $((SECONDS-t0)) s" | tee -a $OUT/commands.txt
  done
done
cd $OUT && tar czf emr3.tgz *.csv *.txt && rm -f *.csv err-*.txt
