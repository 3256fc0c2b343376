#!/bin/bash
# Session 2026-11-24e, second call: the vendor-eval slice, the default run and gqa with main 52b8d2e.
export LD_LIBRARY_PATH=$PWD/.carry/lib
B=.carry/bin
log() { echo "# $(date -u +%FT%TZ) $*" | tee -a $OUT/commands.txt; }
run() {  # run SECONDS NAME ARGS...
  local limit=$1 name=$2; shift 2
  log "$name"
  echo "$B/kvbench $* --out /root/out/emr/$name.csv" >> $OUT/commands.txt
  local t0=$SECONDS
  timeout $limit $B/kvbench "$@" --out $OUT/$name.csv > /dev/null 2>$OUT/err-$name.txt
  echo "  -> exit $? after $((SECONDS-t0)) s" | tee -a $OUT/commands.txt
}
run 330 vendor-eval run --config configs/sweeps/vendor-eval.ini --context 4096,16384 --kv-heads 8,1 --threads 1,2,4,8,16 --cache-state warm --benchmarks decode_step,append --dtype fp32,fp16,bf16,int8 --repetitions 3 --min-time 0.05
run 60 default run
run 170 gqa run --model qwen3-0.6b --q-heads 8,16,32,64 --kv-heads 8 --context 16384 --threads 1,16 --dtype all --benchmarks attention --repetitions 3 --min-time 0.1 --ceiling-bracket
cd $OUT && tar czf emr6.tgz *.csv *.txt && rm -f *.csv err-*.txt
