#!/bin/bash
# Every ~2 minutes: one short run with the barrier crossing alone, 1 and 2 threads, Qwen3-0.6B
# fp32 at 36 and 73 positions (LLC rows) and 4682 (DRAM, 1 GiB)... kept short: 36 and 73 only.
cd /tmp/placement
export KVBENCH_MODELS_DIR=/work/main/configs/models
cp /work/main/build/kvbench ./kvbench
i=0
while [ ! -f stop ]; do
  i=$((i+1))
  busy_before=$(pgrep -c -f 'cc1plus|ctest|_tests|kvbench (run|report|ab|compare)' )
  ts=$(date -u +%Y%m%dT%H%M%SZ)
  ./kvbench run --model qwen3-0.6b --context 36,73 --dtype fp32 --threads 1,2 --benchmarks decode_step \
    --repetitions 5 --min-time 0.05 --ceilings barrier --llc 16MiB --out runs/$ts.csv > logs/$ts.log 2>&1
  rc=$?
  busy_after=$(pgrep -c -f 'cc1plus|ctest|_tests|kvbench (run|report|ab|compare)' )
  echo "$ts rc=$rc busy_before=$busy_before busy_after=$busy_after" >> index.txt
  sleep 110
done
