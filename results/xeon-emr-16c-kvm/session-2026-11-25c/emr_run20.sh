#!/bin/bash
# Session 2026-11-25 (ninth), first call: K rows scored in address order (e5d2f43, "new") against
# the chunk order (f206959 build, "base"), decode_step Qwen3-0.6B, context auto (this host's L2,
# LLC and 4x LLC sizes), fp32/fp16/int8, 1 thread, alternating binaries, 3 rounds.
export LD_LIBRARY_PATH=$PWD/.carry/lib
mkdir -p $OUT/ab
log() { echo "# $(date -u +%FT%TZ) $*" | tee -a $OUT/ab/commands.txt; }
for r in 1 2 3; do
  for b in base new; do
    bin=.carry/bin/kvbench; [ $b = new ] && bin=.carry/bin/kvbench_new
    log "round $r $b: $bin run --model qwen3-0.6b --context auto --dtype fp32,fp16,int8 --threads 1 --benchmarks decode_step --repetitions 3"
    $bin run --model qwen3-0.6b --context auto --dtype fp32,fp16,int8 --threads 1 --benchmarks decode_step --repetitions 3 --out $OUT/ab/t1-$b-r$r.csv >/dev/null 2>&1; echo "  -> exit $?" | tee -a $OUT/ab/commands.txt
  done
done
python3 - $OUT/ab <<'PY'
import csv,glob,sys,os
for f in sorted(glob.glob(sys.argv[1]+'/t1-*.csv')):
    for r in csv.DictReader(open(f)):
        if r['aggregate']=='median':
            print(os.path.basename(f), r['dtype'], r['context'], r['ws_level'], '%.1f'%float(r['gbps']), '%.1f'%float(r['pct_of_ceiling'] or 0), r['valid'])
PY
