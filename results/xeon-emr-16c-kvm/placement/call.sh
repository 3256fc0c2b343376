#!/bin/bash
# Placement over time on the EMR host: the per-layer barrier's crossing (kvbench run --ceilings
# barrier) and a Qwen3-0.6B fp32 LLC row at 1-16 threads every ~30 s for 7 minutes, with the
# crossing between every two PUs at the start and the end.
cd "$(dirname "$0")/.."
mkdir -p /tmp/pk && tar xJf .carry/pack.tar.xz -C /tmp/pk
export LD_LIBRARY_PATH=/tmp/pk/lib KVBENCH_MODELS_DIR=$PWD/configs/models
K=/tmp/pk/bin/kvbench
D=$OUT/emr-placement
mkdir -p $D/runs
date -u > $D/started.txt
lscpu > $D/lscpu.txt
$K ceilings --barrier-pairs --min-time 0.02 > $D/pairs-start.txt 2>&1
end=$((SECONDS+400))
while [ $SECONDS -lt $end ]; do
  ts=$(date -u +%Y%m%dT%H%M%SZ)
  $K run --model qwen3-0.6b --context 141 --dtype fp32 --threads 1,2,4,8,16 --benchmarks decode_step \
    --repetitions 5 --min-time 0.05 --ceilings barrier --llc 64MiB --out $D/runs/$ts.csv > $D/runs/$ts.log 2>&1
  echo "$ts rc=$? $SECONDS" >> $D/index.txt
  sleep 20
done
$K ceilings --barrier-pairs --min-time 0.02 > $D/pairs-end.txt 2>&1
date -u >> $D/started.txt
tar cJf $OUT/emr-placement.tar.xz -C $OUT emr-placement && rm -rf $D
