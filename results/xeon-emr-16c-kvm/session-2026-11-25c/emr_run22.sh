#!/bin/bash
# Session 2026-11-25 (ninth), third call: the targets sweep with main 40be848 (a block's K rows
# scored two at a time in address order at G <= 2), threads 1,2,4,8,16, 5 repetitions, brackets.
export LD_LIBRARY_PATH=$PWD/.carry/lib
KVBENCH=.carry/bin/kvbench THREADS=1,2,4,8,16 ONLY="targets" results/reference-run.sh $OUT/emr
python3 - $OUT/emr/targets.csv <<'PY'
import csv,sys
for r in csv.DictReader(open(sys.argv[1])):
    if r['aggregate']=='median' and r['benchmark']=='decode_step':
        print(r['dtype'], r['threads'], r['context'], r['ws_level'], '%.1f'%float(r['gbps']), '%.1f'%float(r['pct_of_ceiling'] or 0), r['valid'])
PY
