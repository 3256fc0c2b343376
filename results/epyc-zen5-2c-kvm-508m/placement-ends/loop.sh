#!/bin/bash
# Back to back (5 s apart): the crossing at the start and end of each run, 1 and 2 threads,
# Qwen3-0.6B fp32 at 36 and 73 positions (LLC rows), 30 repetitions of 0.2 s each.
cd /tmp/placement2
export KVBENCH_MODELS_DIR=/work/main/configs/models
cp /work/main/build/kvbench ./kvbench
while [ ! -f stop ]; do
  busy_before=$(pgrep -c -f 'cc1plus|ctest|_tests|kvbench (run|report|ab|compare)' )
  ts=$(date -u +%Y%m%dT%H%M%SZ)
  ./kvbench run --model qwen3-0.6b --context 36,73 --dtype fp32 --threads 1,2 --benchmarks decode_step \
    --repetitions 30 --min-time 0.2 --ceilings barrier --llc 16MiB --out runs/$ts.csv > logs/$ts.log 2>&1
  rc=$?
  busy_after=$(pgrep -c -f 'cc1plus|ctest|_tests|kvbench (run|report|ab|compare)' )
  echo "$ts rc=$rc busy_before=$busy_before busy_after=$busy_after" >> index.txt
  sleep 5
done
