#!/bin/bash
# Alternating samples: plain 2-thread read stream (pf:0), the same with the kernels' 4 KB T0 window
# (pf:4096), and decode_step fp32 and int8 from DRAM at 2 threads, until $1 (epoch seconds).
cd /work/main
out=/tmp/mon/samples.txt; : > $out
i=0
while [ $(date +%s) -lt $1 ]; do
  i=$((i+1)); t=$(date -u +%T)
  kb=$(./build/benchmarks/kernel_bench --benchmark_filter='overlap_threads/fma:0/threads:2/' --benchmark_min_time=0.3 2>/dev/null | grep -o 'pf:[0-9]*/real_time.*GB/s=[0-9.]*' | sed 's#/real_time.*GB/s=# #' | tr '\n' ' ')
  rm -f /tmp/mon/d.csv
  ./build/kvbench run --llc 16MiB --model qwen3-0.6b --context 4682,18158 --dtype fp32,int8 --threads 2 --benchmarks decode_step --repetitions 1 --min-time 0.2 --ceilings none --out /tmp/mon/d.csv >/dev/null 2>&1
  d=$(python3 -c "
import csv
print(' '.join(r['dtype']+':'+r['context']+':'+r['gbps'][:5] for r in csv.DictReader(open('/tmp/mon/d.csv')) if r['benchmark']=='decode_step' and r['aggregate']=='none'))")
  echo "$i $t $kb $d" >> $out
  cp /tmp/mon/d.csv /tmp/mon/d-$i.csv
done
