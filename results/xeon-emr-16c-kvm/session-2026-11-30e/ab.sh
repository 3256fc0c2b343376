#!/bin/bash
# Session 2026-11-30e on the lent EMR host: was the reference set's lower 1-thread DRAM rows the
# kernels or the machine? `kvbench ab` of main c4eb3f1's kvbench (the set before's build) against
# main 03ede85's (this set's): Qwen3-0.6B decode_step at 9363 positions (0.5-2 GiB of cache,
# 8-32x the 64 MiB LLC), every dtype, 1 and 16 threads, alternating rounds until BUDGET seconds.
# Run from the repository root with .carry/pack.tar.xz (bin/kvbench.base = c4eb3f1,
# bin/kvbench = 03ede85); everything lands in $OUT.
[ -f .carry/pack.tar.xz ] && tar xJf .carry/pack.tar.xz -C .carry
export LD_LIBRARY_PATH=$PWD/.carry/lib KVBENCH_MODELS_DIR=$PWD/configs/models
bin=$PWD/.carry/bin
cd "$OUT" || exit 1
lscpu > lscpu.txt
"$bin/kvbench" ab --dir ab-dram --base "$bin/kvbench.base" --new "$bin/kvbench" \
  --rounds "${ROUNDS:-10}" --budget "${BUDGET:-330}" -- \
  --model qwen3-0.6b --context 9363 --dtype fp32,fp16,bf16,int8 --threads 1,16 \
  --benchmarks decode_step --llc 64MiB --ceilings none --repetitions 3 --min-time 0.05 \
  > ab-dram.txt 2>&1
echo "$(date -u +%H:%M:%S) ab rc=$?"; grep -s -E 'rounds in|^decode' ab-dram.txt
tar cJf ab-dram.tar.xz ab-dram ab-dram.txt lscpu.txt && rm -rf ab-dram
