#!/bin/bash
# 2026-11-30h, second call: with the window running on into the next chunk, do finer or coarser
# chunks pay at 8 and 16 threads? bin/kvbench.cpw = the run-on change plus a scratch knob,
# KVB_CPW, for kChunksPerWorker (16). Two `kvbench ab` of the same binary: 32 against 16, then
# 8 against 16, each until BUDGET seconds.
tar xJf .carry/pack.tar.xz -C .carry
export LD_LIBRARY_PATH=$PWD/.carry/lib KVBENCH_MODELS_DIR=$PWD/configs/models
bin=$PWD/.carry/bin/kvbench.cpw
cd "$OUT" || exit 1
date -u > date.txt
for v in 32 8; do
  "$bin" ab --dir ab-cpw$v --base "$bin" --new "$bin" --new-env KVB_CPW=$v --rounds 30 --budget "${BUDGET:-250}" -- \
    --model qwen3-0.6b --context 292,9363 --dtype fp32,fp16,bf16,int8 --threads 8,16 \
    --benchmarks decode_step --ceilings none --repetitions 3 --min-time 0.05 --llc 64MiB > ab-cpw$v.txt 2>&1
  echo "cpw $v rc=$?"; grep -E 'rounds in' ab-cpw$v.txt
  awk '/^decode/{n=$10; r=$(11+n); f=""; for(i=11+n;i<=NF;i++) f=f" "$i; print $2,$3,$4,f}' ab-cpw$v.txt
done
tar cJf ab-cpw.tar.xz ab-cpw32 ab-cpw8 ab-cpw32.txt ab-cpw8.txt date.txt && rm -rf ab-cpw32 ab-cpw8
