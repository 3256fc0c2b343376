#!/bin/bash
# Session 2026-11-30d on the lent EMR host (16 vCPUs, AVX-512): every vector that several FMAs
# share held in a register (InRegister in kernels/attention.cc): the K chunks and query chunks of
# the scores, the p broadcasts of the V sums, besides last session's V chunks. Binaries: base =
# main 164f602, new = this change; kernels_test is new's.
#   1. kernels_test's attention tests on this CPU's targets (AVX3's 4-head blocks among them);
#   2. kernel_bench floor/ (one KV head, 64 and 512 positions, rows in L1/L2: the arithmetic
#      alone): fp32 G = 1, 2, 8 and fp16, bf16, int8 G = 8; ROUNDS rounds, each arm's best of 10
#      repetitions per round;
#   3. `kvbench ab` base against new: the GQA target's rows (Qwen3-0.6B's 8 KV heads, G = 1 and 8,
#      16384 positions, from DRAM), fp32, fp16, bf16, int8, THREADS threads (AB_ROUNDS=0: none).
# ARMS names the kernel_bench builds timed in step 2 (default "base new"; the second and third
# calls added "part": the change without the query and K chunks of ScoreRowPairs in registers,
# which is what landed; the third call's kernels_test is part's).
# Run from the repository root with .carry/pack.tar.xz; everything lands in $OUT.
[ -f .carry/pack.tar.xz ] && tar xJf .carry/pack.tar.xz -C .carry
export LD_LIBRARY_PATH=$PWD/.carry/lib KVBENCH_MODELS_DIR=$PWD/configs/models
bin=$PWD/.carry/bin
cd "$OUT" || exit 1
tag=${TAG:-}
lscpu > lscpu.txt
if [ "${TESTS:-1}" = 1 ]; then
  timeout 150 "$bin/kernels_test" --gtest_filter='SimdTarget.*:*Attention*:*SplitMerge*:*Climbing*:*Sliding*' \
    > kernels_test.log 2>&1
  echo "$(date -u +%H:%M:%S) tests rc=$?"; grep -E 'PASSED|FAILED' kernels_test.log
fi
if [ "${ROUNDS:-4}" -gt 0 ]; then
  for r in $(seq 1 "${ROUNDS:-4}"); do
    for arm in ${ARMS:-base new}; do
      taskset -c 1 "$bin/kernel_bench.$arm" \
        --benchmark_filter="${FLOOR:-floor/(fp32/G:(1|2|8)|(fp16|bf16|int8)/G:8)/ctx:(64|512)$}" \
        --benchmark_min_time=0.05 --benchmark_repetitions=10 2>/dev/null |
        grep -E '^floor' | grep -vE '_(mean|median|stddev|cv) ' | awk -v a=$arm -v r=$r '{print r, a, $1, $2}'
    done
  done > floor$tag.txt
  echo "$(date -u +%H:%M:%S) floor done"
fi
[ "${AB_ROUNDS:-6}" -gt 0 ] && "$bin/kvbench.new" ab --dir ab-gqa$tag --base "$bin/kvbench.base" --new "$bin/kvbench.new" \
  --rounds "${AB_ROUNDS:-6}" --budget "${BUDGET:-200}" -- \
  --model qwen3-0.6b --q-heads 8,64 --kv-heads 8 --context 16384 --dtype fp32,fp16,bf16,int8 \
  --threads "${THREADS:-16}" --benchmarks attention --llc 64MiB --ceilings none \
  --repetitions 3 --min-time 0.05 > ab-gqa$tag.txt 2>&1
echo "$(date -u +%H:%M:%S) ab rc=$?"; grep -s -E 'rounds in|^attention' ab-gqa$tag.txt
tar cJf "operands-in-registers$tag.tar.xz" kernels_test.log floor$tag.txt ab-gqa$tag ab-gqa$tag.txt lscpu.txt 2>/dev/null && rm -rf ab-gqa$tag
