#!/bin/bash
# Why the EMR host's 2- and 8-thread rows spread at one placement: back-to-back kvbench runs (5 s
# apart) for 420 s of Qwen3-0.6B fp32 at 141 positions (31 MiB, LLC-resident for a 64 MiB LLC),
# 1, 2 and 8 threads, every row bracketed (--ceiling-bracket: its level's read ceiling, an FP32 FMA
# burst on its workers and, at 2+ workers, the barrier crossing, right before and after it), the
# runs' crossings at both ends (--ceilings barrier).
cd "$(dirname "$0")/.."
mkdir -p /tmp/pk && tar xJf .carry/pack.tar.xz -C /tmp/pk
export LD_LIBRARY_PATH=/tmp/pk/lib KVBENCH_MODELS_DIR=$PWD/configs/models
K=/tmp/pk/bin/kvbench
D=$OUT/emr-spread
mkdir -p $D/runs
date -u > $D/started.txt
lscpu > $D/lscpu.txt
end=$((SECONDS+420))
while [ $SECONDS -lt $end ]; do
  ts=$(date -u +%Y%m%dT%H%M%SZ)
  $K run --model qwen3-0.6b --context 141 --dtype fp32 --threads 1,2,8 --benchmarks decode_step \
    --repetitions 20 --min-time 0.1 --ceilings barrier --ceiling-bracket --llc 64MiB \
    --out $D/runs/$ts.csv > $D/runs/$ts.log 2>&1
  echo "$ts rc=$? $SECONDS" >> $D/index.txt
  sleep 5
done
date -u >> $D/started.txt
cp "$0" $D/call.sh
tar cJf $OUT/emr-spread.tar.xz -C $OUT emr-spread && rm -rf $D
