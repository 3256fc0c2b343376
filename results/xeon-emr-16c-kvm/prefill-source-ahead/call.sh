#!/bin/bash
# 2026-12-05, EMR host, one device call: (1) every unit test binary of main 20b4d3e's build, as in
# ../host-tests/call2.sh (no ctest or gnuplot there); (2) prefill_copy with the bulk encoders' fp32
# source prefetched 8 rows ahead (main since 1bb561f) against 4 (before), one scratch build of
# main 47790a7 whose distance comes from KVB_SA (scratch.patch), so both arms are one binary at one
# code placement; ab.sh at 1 and 16 threads, 8 rounds.
# Pack (.carry/pack.tar.xz -> /tmp/pk): bin/{kvbench,kernel_bench,kvbench-sa,<test binaries>}, lib/.
cd "$(dirname "$0")/../../.."
. results/device-env.sh
export KVBENCH_TEST_KVBENCH=/tmp/pk/bin/kvbench KVBENCH_TEST_KERNEL_BENCH=/tmp/pk/bin/kernel_bench \
  KVBENCH_TEST_SOURCE_DIR=$PWD
nproc; date -u; command -v gnuplot || echo "no gnuplot"
mkdir -p $OUT/host-tests
for t in kernels_test harness_tests variants_test cli_tests analysis_tests cli_binary_tests; do
  start=$(date +%s)
  timeout 200 /tmp/pk/bin/$t > $OUT/host-tests/$t.txt 2>&1
  echo "$t rc=$? $(( $(date +%s) - start )) s: $(grep -E '^\[  PASSED  \]|^\[  FAILED  \] [0-9]+ test' $OUT/host-tests/$t.txt | tr '\n' ' ')"
  grep -E '^\[  FAILED  \] [A-Za-z]' $OUT/host-tests/$t.txt | sort -u
done
(cd $OUT && tar cJf host-tests.tar.xz host-tests && rm -rf host-tests)
date -u
NAME=source-ahead THREADS="1 16" ROUNDS=8 BUDGET=170 bash results/xeon-emr-16c-kvm/prefill-source-ahead/ab.sh
