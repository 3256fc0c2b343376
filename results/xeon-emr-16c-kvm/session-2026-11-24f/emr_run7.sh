#!/bin/bash
# Session 2026-11-24f: decode_step A/B, old = 52b8d2e, new = 27ef4b4 (partial tiles masked in
# registers, no per-call prefetcher init, one-pass merge), 1 and 16 threads, two alternating
# rounds; then gqa with the new build.
export LD_LIBRARY_PATH=$PWD/.carry/lib
B=.carry/bin
log() { echo "# $(date -u +%FT%TZ) $*" | tee -a $OUT/commands.txt; }
for r in 1 2; do
  for b in old new; do
    bin=$B/kvbench; [ $b = old ] && bin=$B/kvbench_old
    log "$bin decode_step r$r"
    t0=$SECONDS
    timeout 100 $bin run --model qwen3-0.6b --context auto --dtype fp32,fp16,bf16,int8 --threads 1,16 --benchmarks decode_step --repetitions 3 --min-time 0.1 --ceiling-bracket --out $OUT/decode-$b-r$r.csv > /dev/null 2>$OUT/err-$b-$r.txt
    echo "  -> exit $? after $((SECONDS-t0)) s" | tee -a $OUT/commands.txt
  done
done
log "$B/kvbench gqa"
echo "$B/kvbench run --model qwen3-0.6b --q-heads 8,16,32,64 --kv-heads 8 --context 16384 --threads 1,16 --dtype all --benchmarks attention --repetitions 3 --min-time 0.1 --ceiling-bracket --out /root/out/emr/gqa.csv" >> $OUT/commands.txt
t0=$SECONDS
timeout 170 $B/kvbench run --model qwen3-0.6b --q-heads 8,16,32,64 --kv-heads 8 --context 16384 --threads 1,16 --dtype all --benchmarks attention --repetitions 3 --min-time 0.1 --ceiling-bracket --out $OUT/gqa.csv > /dev/null 2>$OUT/err-gqa.txt
echo "  -> exit $? after $((SECONDS-t0)) s" | tee -a $OUT/commands.txt
cd $OUT && tar czf emr7.tgz *.csv *.txt && rm -f *.csv err-*.txt
