#!/bin/bash
# Session 2026-11-25 (ninth), second call: one binary (e5d2f43 + a KVB_EXP switch), score order
# 0 = chunk order (main before e5d2f43), 1 = rows in address order (e5d2f43), 2 = pairs of rows
# in chunk order; decode_step Qwen3-0.6B, context auto, fp32/fp16/int8, 1 thread, 4 rounds.
export LD_LIBRARY_PATH=$PWD/.carry/lib
mkdir -p $OUT/ab
log() { echo "# $(date -u +%FT%TZ) $*" | tee -a $OUT/ab/commands.txt; }
for r in 1 2 3 4; do
  for m in 0 1 2; do
    log "round $r KVB_EXP=$m: .carry/bin/kvbench_exp run --model qwen3-0.6b --context auto --dtype fp32,fp16,int8 --threads 1 --benchmarks decode_step --repetitions 3"
    KVB_EXP=$m .carry/bin/kvbench_exp run --model qwen3-0.6b --context auto --dtype fp32,fp16,int8 --threads 1 --benchmarks decode_step --repetitions 3 --out $OUT/ab/m$m-r$r.csv >/dev/null 2>&1; echo "  -> exit $?" | tee -a $OUT/ab/commands.txt
  done
done
python3 - $OUT/ab <<'PY'
import csv,glob,sys,os
rows=[]
for f in sorted(glob.glob(sys.argv[1]+'/m*.csv')):
    for r in csv.DictReader(open(f)):
        if r['aggregate']=='median':
            rows.append((r['dtype'], r['ws_level'], os.path.basename(f)[:2], os.path.basename(f), '%.1f'%float(r['gbps']), '%.1f'%float(r['pct_of_ceiling'] or 0), r['valid']))
for x in sorted(rows): print(*x)
PY
