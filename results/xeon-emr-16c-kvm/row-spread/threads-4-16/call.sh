#!/bin/bash
# 2026-12-03, EMR host, one device call: every unit-test binary of main dfba3bf's build (as
# host-tests/call2.sh), then the row-spread loop at 4 and 16 threads: back-to-back kvbench runs
# (5 s apart) of Qwen3-0.6B fp32 decode_step at 141 positions (31 MiB, LLC-resident for a 64 MiB
# LLC), every row bracketed (its level's read ceiling, an FMA burst on its workers and the barrier
# crossing, right before and after it), the runs' crossings at both ends.
cd "$(dirname "$0")/.."
mkdir -p /tmp/pk && tar xJf .carry/pack.tar.xz -C /tmp/pk
export LD_LIBRARY_PATH=/tmp/pk/lib KVBENCH_MODELS_DIR=$PWD/configs/models
export KVBENCH_TEST_KVBENCH=/tmp/pk/bin/kvbench KVBENCH_TEST_KERNEL_BENCH=/tmp/pk/bin/kernel_bench \
  KVBENCH_TEST_SOURCE_DIR=$PWD
T=$OUT/host-tests
mkdir -p $T
{ nproc; date -u; command -v gnuplot || echo "no gnuplot"
for t in kernels_test harness_tests variants_test cli_tests analysis_tests cli_binary_tests; do
  start=$(date +%s)
  timeout 200 /tmp/pk/bin/$t > $T/host-$t.txt 2>&1
  echo "$t rc=$? $(( $(date +%s) - start )) s: $(grep -E '^\[  PASSED  \]|^\[  FAILED  \] [0-9]+ test' $T/host-$t.txt | tr '\n' ' ')"
  grep -E '^\[  FAILED  \] [A-Za-z]' $T/host-$t.txt | sort -u
done
date -u; } > $T/summary.txt 2>&1
cat $T/summary.txt
cp "$0" $T/call.sh
tar cJf $OUT/host-tests.tar.xz -C $OUT host-tests && rm -rf $T

K=/tmp/pk/bin/kvbench
D=$OUT/emr-spread
mkdir -p $D/runs
date -u > $D/started.txt
lscpu > $D/lscpu.txt
end=$((SECONDS+330))
while [ $SECONDS -lt $end ]; do
  ts=$(date -u +%Y%m%dT%H%M%SZ)
  $K run --model qwen3-0.6b --context 141 --dtype fp32 --threads 4,16 --benchmarks decode_step \
    --repetitions 20 --min-time 0.1 --ceilings barrier --ceiling-bracket --llc 64MiB \
    --out $D/runs/$ts.csv > $D/runs/$ts.log 2>&1
  echo "$ts rc=$? $SECONDS" >> $D/index.txt
  sleep 5
done
date -u >> $D/started.txt
cp "$0" $D/call.sh
tar cJf $OUT/emr-spread.tar.xz -C $OUT emr-spread && rm -rf $D
