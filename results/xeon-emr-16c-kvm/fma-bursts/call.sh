#!/bin/bash
# The run's FMA ceiling as the fastest of up to 4 bursts (main after d806b62): back-to-back runs
# with --ceilings all at 2, 4, 8 and 16 threads for 220 s, each printing every burst on stderr
# ("ceiling ceiling_fma (T threads): G GFLOP/s, slowest worker N% ..."), the first of which is
# what one burst, the ceiling before, would have read. Returns one archive.
cd "$(dirname "$0")/../../.."
mkdir -p /tmp/pk && tar xJf .carry/pack.tar.xz -C /tmp/pk
export LD_LIBRARY_PATH=/tmp/pk/lib KVBENCH_MODELS_DIR=$PWD/configs/models
K=/tmp/pk/bin/kvbench
D=$OUT/fma-bursts
mkdir -p $D/runs
date -u > $D/started.txt
lscpu > $D/lscpu.txt
end=$((SECONDS+220))
while [ $SECONDS -lt $end ]; do
  ts=$(date -u +%Y%m%dT%H%M%SZ)
  $K run --model qwen3-0.6b --context 64 --dtype fp32 --threads 2,4,8,16 --benchmarks decode_step \
    --repetitions 1 --min-time 0.01 --ceilings all --llc 64MiB --out $D/runs/$ts.csv > $D/runs/$ts.log 2>&1
  echo "$ts rc=$? $SECONDS" >> $D/index.txt
done
date -u >> $D/started.txt
cp "$0" $D/call.sh
tar cJf $OUT/fma-bursts.tar.xz -C $OUT fma-bursts && rm -rf $D
