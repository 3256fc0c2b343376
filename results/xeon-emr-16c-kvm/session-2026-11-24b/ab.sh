#!/bin/bash
# A/B on the device: 7864e12 (old) vs this session's prefetch and score-block changes (new),
# decode_step Qwen3-0.6B at the cache-sized contexts, 1 and 16 threads, alternating rounds.
export LD_LIBRARY_PATH=$PWD/.carry/lib
B=.carry/bin
log() { echo "# $(date -u +%FT%TZ) $*" | tee -a $OUT/commands.txt; }
lscpu > $OUT/lscpu.txt
for r in 1 2; do
  for b in old new; do
    bin=$B/kvbench; [ $b = old ] && bin=$B/kvbench_old
    log "$bin decode_step r$r"
    t0=$SECONDS
    $bin run --model qwen3-0.6b --context auto --dtype fp32,fp16,bf16,int8 --threads 1,16 --benchmarks decode_step --repetitions 3 --min-time 0.1 --ceiling-bracket --out $OUT/decode-$b-r$r.csv > /dev/null 2>$OUT/err-$b-$r.txt
    echo "  -> exit $? after $((SECONDS-t0)) s" | tee -a $OUT/commands.txt
  done
done
cd $OUT && tar czf ab.tgz *.csv *.txt && rm -f *.csv err-*.txt
