#!/bin/bash
# 2026-11-30h, third call: the run-on change (bin/kvbench) against 868f523 (bin/kvbench.base, the
# scratch knobs unset) with each decode_step row bracketed by the DRAM read ceiling, so that each
# arm's share of the ceiling is measured; 16 threads, 9363 positions, rounds until BUDGET seconds.
tar xJf .carry/pack.tar.xz -C .carry
export LD_LIBRARY_PATH=$PWD/.carry/lib KVBENCH_MODELS_DIR=$PWD/configs/models
bin=$PWD/.carry/bin
cd "$OUT" || exit 1
date -u > date.txt
"$bin/kvbench" ab --dir ab-bracket --base "$bin/kvbench.base" --new "$bin/kvbench" --rounds 20 --budget "${BUDGET:-380}" -- \
  --model qwen3-0.6b --context 9363 --dtype fp32,fp16,bf16,int8 --threads 16 \
  --benchmarks decode_step --ceiling-bracket --ceilings read --repetitions 3 --min-time 0.05 --llc 64MiB > ab-bracket.txt 2>&1
echo "ab rc=$?"; grep -E 'rounds in' ab-bracket.txt
awk '/^decode/{n=$10; f=""; for(i=11+n;i<=NF;i++) f=f" "$i; print $2,$3,$4,f}' ab-bracket.txt
tar cJf ab-bracket.tar.xz ab-bracket ab-bracket.txt date.txt && rm -rf ab-bracket
