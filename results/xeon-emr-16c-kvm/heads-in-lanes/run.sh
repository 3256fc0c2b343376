#!/bin/bash
# Session 2026-11-30c on the lent EMR host (16 vCPUs, AVX-512): fp32 attention scored with the
# heads in the lanes (G = 4, 8, 16) and its V chunks read once per row (kernels/attention.cc).
#   1. kernels_test's attention tests on this CPU's targets (AVX3 runs the P = 2 and 4 forms, which
#      the AVX2 development guest cannot);
#   2. kernel_bench floor/ (one KV head, 64 and 512 positions: the arithmetic alone, rows in
#      L1/L2), three binaries: main before (base), heads in lanes (lanes), and lanes with the V
#      chunks in registers (new); ROUNDS rounds, each arm's best of 10 repetitions per round;
#   3. `kvbench ab` base against new: Qwen3-0.6B's 8 KV heads at G = 1, 2, 4, 8 (8-64 query
#      heads), 16384 positions, fp32, 1 and 16 threads (the GQA target's rows).
# Run from the repository root with .carry/pack.tar.xz; everything lands in $OUT.
[ -f .carry/pack.tar.xz ] && tar xJf .carry/pack.tar.xz -C .carry
export LD_LIBRARY_PATH=$PWD/.carry/lib KVBENCH_MODELS_DIR=$PWD/configs/models
bin=$PWD/.carry/bin
cd "$OUT" || exit 1
lscpu > lscpu.txt
if [ "${TESTS:-1}" = 1 ]; then
  timeout 240 "$bin/kernels_test" --gtest_filter='SimdTarget.*:*Attention*:*SplitMerge*:*Climbing*:*Sliding*' \
    > kernels_test.log 2>&1
  echo "$(date -u +%H:%M:%S) tests rc=$?"; grep -E 'testing target|PASSED|FAILED' kernels_test.log
fi
for r in $(seq 1 "${ROUNDS:-4}"); do
  for arm in base lanes new; do
    taskset -c 1 "$bin/kernel_bench.$arm" --benchmark_filter="${FLOOR:-floor/fp32/G:(1|2|8)/ctx:(64|512)$}" \
      --benchmark_min_time=0.05 --benchmark_repetitions=10 2>/dev/null |
      grep -E '^floor' | grep -vE '_(mean|median|stddev|cv) ' | awk -v a=$arm -v r=$r '{print r, a, $1, $2}'
  done
done > floor.txt
echo "$(date -u +%H:%M:%S) floor done"
"$bin/kvbench.new" ab --dir ab-gqa --base "$bin/kvbench.base" --new "$bin/kvbench.new" \
  --rounds "${AB_ROUNDS:-6}" --budget "${BUDGET:-280}" -- \
  --model qwen3-0.6b --q-heads 8,16,32,64 --kv-heads 8 --context 16384 --dtype fp32 \
  --threads "${THREADS:-1,16}" --benchmarks attention --llc 64MiB --ceilings none \
  --repetitions 3 --min-time 0.1 > ab-gqa.txt 2>&1
echo "$(date -u +%H:%M:%S) ab rc=$?"; tail -25 ab-gqa.txt
tar cJf "heads-in-lanes${TAG:-}.tar.xz" kernels_test.log floor.txt ab-gqa ab-gqa.txt lscpu.txt 2>/dev/null && rm -rf ab-gqa
