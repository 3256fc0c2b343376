#!/bin/bash
# Session 2026-11-29: main's kvbench (.carry/bin/kvbench.base) against a scratch build
# (.carry/bin/kvbench.$ARM), alternating, the order swapped every round, decode_step Qwen3-0.6B at
# the contexts sized from a 64 MiB LLC, 1 and 16 threads. The two calls of this session:
#   ARM=unroll DTYPES=fp32,fp16,bf16,int8 BUDGET=300 bash ab.sh   (the prefetch line loops unrolled)
#   ARM=slice DTYPES=fp16,bf16,int8 BUDGET=330 bash ab.sh         (K-block prefetches spread: slice.diff)
# (run from the repository root). Rounds start while less than BUDGET seconds have passed; the
# CSVs come back as one archive. Compare with
#   kvbench compare ab-1-base.csv,ab-2-base.csv,... ab-1-$ARM.csv,ab-2-$ARM.csv,...
[ -f .carry/pack.tar.xz ] && tar xJf .carry/pack.tar.xz -C .carry
export LD_LIBRARY_PATH=$PWD/.carry/lib KVBENCH_MODELS_DIR=$PWD/configs/models
mkdir -p "$OUT/ab" && cd "$OUT/ab" || exit 1
start=$(date +%s)
for r in 1 2 3 4 5 6 7 8; do
  [ $(( $(date +%s) - start )) -gt "${BUDGET:-400}" ] && break
  if [ $((r % 2)) -eq 1 ]; then order="base $ARM"; else order="$ARM base"; fi
  for arm in $order; do
    "$OLDPWD/.carry/bin/kvbench.$arm" run --model qwen3-0.6b --context auto --dtype "${DTYPES:-fp32,fp16,bf16,int8}" \
      --threads 1,16 --benchmarks decode_step --llc 64MiB --ceilings read --repetitions 3 --min-time 0.05 \
      --out "ab-$r-$arm.csv" > "log-$r-$arm.txt" 2>&1
    echo "round $r $arm rc=$? at $(( $(date +%s) - start )) s"
  done
done
lscpu > lscpu.txt
cd "$OUT" && tar cJf ab.tar.xz ab && rm -rf ab
