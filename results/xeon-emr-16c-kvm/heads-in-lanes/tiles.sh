#!/bin/bash
# Second call: the heads-in-lanes groups with longer softmax tiles. A scratch build (kvbench.tiles,
# kernel_bench.tiles, kernels_test) reads KVBENCH_EXP_TILE (16, 32, 64: positions per tile of fp32
# groups of 4+ heads); base is main before the change.
#   1. kernels_test's attention tests at tiles of 32 and 64 (AVX3 among the targets);
#   2. kernel_bench floor/ fp32 G = 2 and 8, 64 and 512 positions: base, then tiles 16, 32, 64;
#      ROUNDS rounds, each arm's best of 10 repetitions per round;
#   3. `kvbench ab` base against tiles at 64: Qwen3-0.6B's 8 KV heads at G = 1 and 8, 16384
#      positions, fp32, 1 and 16 threads.
[ -f .carry/pack.tar.xz ] && tar xJf .carry/pack.tar.xz -C .carry
export LD_LIBRARY_PATH=$PWD/.carry/lib KVBENCH_MODELS_DIR=$PWD/configs/models
bin=$PWD/.carry/bin
cd "$OUT" || exit 1
for t in 32 64; do
  KVBENCH_EXP_TILE=$t timeout 200 "$bin/kernels_test" \
    --gtest_filter='SimdTarget.*:*Attention*:*SplitMerge*:*Climbing*:*Sliding*' > "kernels_test-t$t.log" 2>&1
  echo "$(date -u +%H:%M:%S) tests tile $t rc=$?"; grep -E 'PASSED|FAILED' "kernels_test-t$t.log"
done
for r in $(seq 1 "${ROUNDS:-4}"); do
  for arm in base t16 t32 t64; do
    b="$bin/kernel_bench.tiles"; [ $arm = base ] && b="$bin/kernel_bench.base"
    KVBENCH_EXP_TILE=${arm#t} taskset -c 1 "$b" --benchmark_filter='floor/fp32/G:(2|8)/ctx:(64|512)$' \
      --benchmark_min_time=0.05 --benchmark_repetitions=10 2>/dev/null |
      grep -E '^floor' | grep -vE '_(mean|median|stddev|cv) ' | awk -v a=$arm -v r=$r '{print r, a, $1, $2}'
  done
done > floor-tiles.txt
echo "$(date -u +%H:%M:%S) floor done"
"$bin/kvbench.tiles" ab --dir ab-tiles --base "$bin/kvbench.base" --new "$bin/kvbench.tiles" \
  --new-env KVBENCH_EXP_TILE=64 --rounds "${AB_ROUNDS:-8}" --budget "${BUDGET:-250}" -- \
  --model qwen3-0.6b --q-heads 8,64 --kv-heads 8 --context 16384 --dtype fp32 \
  --threads 1,16 --benchmarks attention --llc 64MiB --ceilings none \
  --repetitions 3 --min-time 0.1 > ab-tiles.txt 2>&1
echo "$(date -u +%H:%M:%S) ab rc=$?"; tail -14 ab-tiles.txt
tar cJf heads-in-lanes-tiles.tar.xz kernels_test-t*.log floor-tiles.txt ab-tiles ab-tiles.txt && rm -rf ab-tiles
