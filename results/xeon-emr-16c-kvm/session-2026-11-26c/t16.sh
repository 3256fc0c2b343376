#!/bin/bash
cd "$(dirname "$0")/.."
export LD_LIBRARY_PATH=$PWD/lib KVBENCH_MODELS_DIR=$PWD/../configs/models
B=$PWD/bin; cd /tmp
for i in 1 2 3; do for b in kv_base kv_new; do
  rm -f t.csv; $B/$b run --model qwen3-0.6b --context 512 --dtype int8,fp32 --threads 16 --benchmarks decode_step --repetitions 5 --min-time 0.05 --ceilings none -o t.csv >/dev/null 2>err.txt || tail -2 err.txt
  echo "$b round $i: $(python3 -c "
import csv
for r in csv.DictReader(open('t.csv')):
  if r['aggregate']=='none': print(r['dtype'], r['ns_per_step'], end='; ')
")"
done; done
