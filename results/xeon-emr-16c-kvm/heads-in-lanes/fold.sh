#!/bin/bash
# Third call: what landed, the fp32 V chunks read once per row into a register (InRegister in
# kernels/attention.cc), without the heads-in-lanes scoring. kvbench.fold, kernel_bench.fold and
# kernels_test are that build; base is main before it.
#   1. kernels_test's attention tests (AVX3 among the targets);
#   2. kernel_bench floor/ fp32 G = 1, 2, 8 at 64 and 512 positions, base and fold, ROUNDS rounds,
#      each arm's best of 10 repetitions per round;
#   3. `kvbench ab` base against fold: decode_step Qwen3-0.6B (G = 2) at its L2, LLC and DRAM
#      contexts, fp32 (changed) and fp16 (unchanged: the control), 1 and 16 threads.
[ -f .carry/pack.tar.xz ] && tar xJf .carry/pack.tar.xz -C .carry
export LD_LIBRARY_PATH=$PWD/.carry/lib KVBENCH_MODELS_DIR=$PWD/configs/models
bin=$PWD/.carry/bin
cd "$OUT" || exit 1
timeout 200 "$bin/kernels_test" --gtest_filter='SimdTarget.*:*Attention*:*SplitMerge*:*Climbing*:*Sliding*' \
  > kernels_test-fold.log 2>&1
echo "$(date -u +%H:%M:%S) tests rc=$?"; grep -E 'PASSED|FAILED' kernels_test-fold.log
for r in $(seq 1 "${ROUNDS:-4}"); do
  for arm in base fold; do
    taskset -c 1 "$bin/kernel_bench.$arm" --benchmark_filter='floor/fp32/G:(1|2|8)/ctx:(64|512)$' \
      --benchmark_min_time=0.05 --benchmark_repetitions=10 2>/dev/null |
      grep -E '^floor' | grep -vE '_(mean|median|stddev|cv) ' | awk -v a=$arm -v r=$r '{print r, a, $1, $2}'
  done
done > floor-fold.txt
echo "$(date -u +%H:%M:%S) floor done"
"$bin/kvbench.fold" ab --dir ab-fold --base "$bin/kvbench.base" --new "$bin/kvbench.fold" \
  --rounds "${AB_ROUNDS:-8}" --budget "${BUDGET:-270}" -- \
  --model qwen3-0.6b --context auto --dtype fp32,fp16 --threads 1,16 --benchmarks decode_step \
  --llc 64MiB --ceilings none --repetitions 3 --min-time 0.05 > ab-fold.txt 2>&1
echo "$(date -u +%H:%M:%S) ab rc=$?"; tail -16 ab-fold.txt
tar cJf heads-in-lanes-fold.tar.xz kernels_test-fold.log floor-fold.txt ab-fold ab-fold.txt && rm -rf ab-fold
