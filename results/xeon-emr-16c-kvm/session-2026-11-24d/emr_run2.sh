#!/bin/bash
# Session 2026-11-24d, second call: the gqa run's fp32 G = 8 at 1 thread (520 ms) read like the
# old binary's A/B rounds (500-504) where the new binary's had 381-399: three more alternating
# rounds, fp32 q 8 and 64, 1 thread only.
export LD_LIBRARY_PATH=$PWD/.carry/lib
B=.carry/bin
log() { echo "# $(date -u +%FT%TZ) $*" | tee -a $OUT/commands.txt; }
for r in 3 4 5; do
  for b in new old; do
    bin=$B/kvbench; [ $b = old ] && bin=$B/kvbench_old
    log "$bin attention fp32 q 8,64 1T r$r"
    t0=$SECONDS
    $bin run --model qwen3-0.6b --q-heads 8,64 --kv-heads 8 --context 16384 --threads 1 --dtype fp32 --benchmarks attention --repetitions 3 --min-time 0.1 --ceiling-bracket --out $OUT/ab-$b-r$r.csv > /dev/null 2>$OUT/err-$b-$r.txt
    echo "  -> exit $? after $((SECONDS-t0)) s" | tee -a $OUT/commands.txt
  done
done
cd $OUT && tar czf emr2.tgz *.csv *.txt && rm -f *.csv err-*.txt
