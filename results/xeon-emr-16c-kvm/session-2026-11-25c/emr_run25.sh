#!/bin/bash
# Session 2026-11-25 (ninth), sixth call: clean binaries, no switch. base = main 84a99dc (chunk
# order), unroll = pairs of rows in address order with the loops unrolled by pragma (no spills);
# decode_step Qwen3-0.6B, context auto, fp32/fp16/int8, 1 thread, alternating, 3 rounds.
export LD_LIBRARY_PATH=$PWD/.carry/lib
mkdir -p $OUT/ab
log() { echo "# $(date -u +%FT%TZ) $*" | tee -a $OUT/ab/commands.txt; }
for r in 1 2 3; do
  for b in base unroll; do
    log "round $r $b: .carry/bin/kvbench_$b run --model qwen3-0.6b --context auto --dtype fp32,fp16,int8 --threads 1 --benchmarks decode_step --repetitions 3"
    .carry/bin/kvbench_$b run --model qwen3-0.6b --context auto --dtype fp32,fp16,int8 --threads 1 --benchmarks decode_step --repetitions 3 --out $OUT/ab/$b-r$r.csv >/dev/null 2>&1; echo "  -> exit $?" | tee -a $OUT/ab/commands.txt
  done
done
python3 - $OUT/ab <<'PY'
import csv,glob,sys,os
rows=[]
for f in sorted(glob.glob(sys.argv[1]+'/*-r*.csv')):
    for r in csv.DictReader(open(f)):
        if r['aggregate']=='median':
            rows.append((r['dtype'], r['ws_level'], os.path.basename(f), '%.1f'%float(r['gbps']), '%.1f'%float(r['pct_of_ceiling'] or 0), r['valid']))
for x in sorted(rows): print(*x)
PY
