#!/bin/bash
# 2026-11-30h: attention_partial's prefetch_to (the window runs on into the worker's next chunk of
# the same head) against the same code without it. base: bin/kvbench.base (868f523 plus inert
# environment knobs), new: bin/kvbench (the change). Alternating rounds until BUDGET seconds.
tar xJf .carry/pack.tar.xz -C .carry
export LD_LIBRARY_PATH=$PWD/.carry/lib KVBENCH_MODELS_DIR=$PWD/configs/models
bin=$PWD/.carry/bin
cd "$OUT" || exit 1
lscpu > lscpu.txt; date -u > date.txt
"$bin/kvbench" ab --dir ab-runon --base "$bin/kvbench.base" --new "$bin/kvbench" --rounds "${ROUNDS:-30}" --budget "${BUDGET:-470}" -- \
  --model qwen3-0.6b --context 292,9363 --dtype fp32,fp16,bf16,int8 --threads 8,16 \
  --benchmarks decode_step --ceilings none --repetitions 3 --min-time 0.05 --llc 64MiB > ab-runon.txt 2>&1
echo "ab rc=$?"; grep -E 'rounds in|^decode' ab-runon.txt
tar cJf ab-runon.tar.xz ab-runon ab-runon.txt lscpu.txt date.txt && rm -rf ab-runon
