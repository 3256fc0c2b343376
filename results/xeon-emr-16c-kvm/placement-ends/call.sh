#!/bin/bash
# Placement within runs on the EMR host: back-to-back kvbench runs (5 s apart) for 420 s, each
# crossing the per-layer barrier at its start and end (--ceilings barrier: ceiling_barrier and
# ceiling_barrier_end) at 2, 4, 8 and 16 threads, with Qwen3-0.6B fp32 at 141 positions (31 MiB,
# the LLC-resident context for a 64 MiB LLC) between, 20 repetitions of 0.1 s each.
cd "$(dirname "$0")/.."
mkdir -p /tmp/pk && tar xJf .carry/pack.tar.xz -C /tmp/pk
export LD_LIBRARY_PATH=/tmp/pk/lib KVBENCH_MODELS_DIR=$PWD/configs/models
K=/tmp/pk/bin/kvbench
D=$OUT/emr-within
mkdir -p $D/runs
date -u > $D/started.txt
lscpu > $D/lscpu.txt
end=$((SECONDS+420))
while [ $SECONDS -lt $end ]; do
  ts=$(date -u +%Y%m%dT%H%M%SZ)
  $K run --model qwen3-0.6b --context 141 --dtype fp32 --threads 2,4,8,16 --benchmarks decode_step \
    --repetitions 20 --min-time 0.1 --ceilings barrier --llc 64MiB --out $D/runs/$ts.csv > $D/runs/$ts.log 2>&1
  echo "$ts rc=$? $SECONDS" >> $D/index.txt
  sleep 5
done
date -u >> $D/started.txt
cp "$0" $D/call.sh
tar cJf $OUT/emr-within.tar.xz -C $OUT emr-within && rm -rf $D
