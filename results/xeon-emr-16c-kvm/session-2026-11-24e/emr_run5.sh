#!/bin/bash
# Session 2026-11-24e, first call: int8 append A/B (old = dd46986, new = e4eaecd: a block's K and V
# row scales before their codes), two alternating rounds at 1 and 8 threads; then targets.csv.
export LD_LIBRARY_PATH=$PWD/.carry/lib
B=.carry/bin
log() { echo "# $(date -u +%FT%TZ) $*" | tee -a $OUT/commands.txt; }
for r in 1 2; do
  for b in old new; do
    bin=$B/kvbench; [ $b = old ] && bin=$B/kvbench_old
    log "$bin append int8 1,8T r$r"
    t0=$SECONDS
    $bin run --model qwen3-0.6b --context 1024 --dtype int8 --threads 1,8 --benchmarks append --repetitions 5 --min-time 0.1 --out $OUT/append-$b-r$r.csv > /dev/null 2>$OUT/err-$b-$r.txt
    echo "  -> exit $? after $((SECONDS-t0)) s" | tee -a $OUT/commands.txt
  done
done
log "$B/kvbench targets"
echo "$B/kvbench run --model qwen3-0.6b --context auto --dtype all --threads 1,2,4,8,16 --benchmarks decode_step,append,prefill_copy --repetitions 5 --min-time 0.1 --ceiling-bracket --out /root/out/emr/targets.csv" >> $OUT/commands.txt
t0=$SECONDS
timeout 470 $B/kvbench run --model qwen3-0.6b --context auto --dtype all --threads 1,2,4,8,16 --benchmarks decode_step,append,prefill_copy --repetitions 5 --min-time 0.1 --ceiling-bracket --out $OUT/targets.csv > /dev/null 2>$OUT/err-targets.txt
echo "  -> exit $? after $((SECONDS-t0)) s" | tee -a $OUT/commands.txt
cd $OUT && tar czf emr5.tgz *.csv *.txt && rm -f *.csv err-*.txt
