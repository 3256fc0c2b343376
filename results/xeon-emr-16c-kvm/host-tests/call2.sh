#!/bin/bash
# 2026-12-02, EMR host: every unit test binary of main HEAD's build (the README's test suite
# without ctest, which the host lacks), cli_binary_tests with its binaries and source tree named
# by the environment. The host has no gnuplot: the report then writes figure scripts only.
cd "$(dirname "$0")/.."
tar xJf .carry/pack.tar.xz -C .carry
export LD_LIBRARY_PATH=$PWD/.carry/lib KVBENCH_MODELS_DIR=$PWD/configs/models
export KVBENCH_TEST_KVBENCH=$PWD/.carry/bin/kvbench KVBENCH_TEST_KERNEL_BENCH=$PWD/.carry/bin/kernel_bench \
  KVBENCH_TEST_SOURCE_DIR=$PWD
nproc; date -u; command -v gnuplot || echo "no gnuplot"
for t in kernels_test harness_tests variants_test cli_tests analysis_tests cli_binary_tests; do
  start=$(date +%s)
  timeout 200 .carry/bin/$t > $OUT/host-$t.txt 2>&1
  echo "$t rc=$? $(( $(date +%s) - start )) s: $(grep -E '^\[  PASSED  \]|^\[  FAILED  \] [0-9]+ test' $OUT/host-$t.txt | tr '\n' ' ')"
  grep -E '^\[  FAILED  \] [A-Za-z]' $OUT/host-$t.txt | sort -u
done
date -u
cd $OUT && tar cJf host-tests.tar.xz host-*.txt && rm host-*.txt
