#!/bin/bash
# 2026-12-03, EMR host: main 38f2cc4's per-worker FMA bursts where they were missing. kvbench
# ceilings at 16 threads three times, then four bracketed runs of Qwen3-0.6B fp32 decode_step at
# 141 positions (the row-spread row) at 8 and 16 threads: each row's core_slowest_pct and
# core_slowest_pu.
cd "$(dirname "$0")/.."
mkdir -p /tmp/pk && tar xJf .carry/pack.tar.xz -C /tmp/pk
export LD_LIBRARY_PATH=/tmp/pk/lib KVBENCH_MODELS_DIR=$PWD/configs/models
K=/tmp/pk/bin/kvbench
D=$OUT/worker-bursts
mkdir -p $D/runs
for i in 1 2 3; do
  echo "## $(date -u +%T)"
  timeout 60 $K ceilings --threads 16 --min-time 0.1 --llc 64MiB 2>&1
done > $D/ceilings-16.txt
for i in 1 2 3 4; do
  ts=$(date -u +%Y%m%dT%H%M%SZ)
  timeout 120 $K run --model qwen3-0.6b --context 141 --dtype fp32 --threads 8,16 --benchmarks decode_step \
    --repetitions 10 --min-time 0.1 --ceiling-bracket --llc 64MiB --out $D/runs/$ts.csv > $D/runs/$ts.log 2>&1
  echo "$ts rc=$?" >> $D/index.txt
done
cp "$0" $D/call.sh
tar cJf $OUT/worker-bursts.tar.xz -C $OUT worker-bursts && rm -rf $D
