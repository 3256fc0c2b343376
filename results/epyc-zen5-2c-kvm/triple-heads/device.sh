#!/bin/bash
# One device call (2026-12-07): the AVX-512 pass of three query heads on a lent 16-vCPU Xeon.
# kvbench ab of one scratch build (bin/kvbench-h3 of .carry/pack-new.tar.xz: scratch.patch on main
# 488ff88, KVB_H3 in the environment switches the pass on) with KVB_H3=1 against without:
# attention, 28 layers, 24 q / 8 KV heads (G = 3, Llama 3.2 3B) and 32 q / 8 KV (G = 4, code not
# touched: the control), head_dim 128, 48 positions (L3) and 16384 (DRAM), every dtype, the LLC
# held at 64 MiB as the reference sets do; 1 thread, then 16. Each ab stops starting rounds past
# its --budget (seconds) once two have run. Everything leaves as one archive.
cd "$(dirname "$0")/../../.."
mkdir -p /tmp/pn "$OUT/h3" && tar xJf .carry/pack-new.tar.xz -C /tmp/pn
export LD_LIBRARY_PATH=/tmp/pn/lib KVBENCH_MODELS_DIR=$PWD/configs/models
K=/tmp/pn/bin/kvbench-h3
lscpu > "$OUT/h3/lscpu.txt"; uname -a > "$OUT/h3/uname.txt"
shape="--layers 28 --q-heads 24,32 --kv-heads 8 --head-dim 128 --context 48,16384 --benchmarks attention
  --dtype fp32,fp16,bf16,int8 --repetitions 3 --min-time 0.05 --llc 64MiB"
date -u +%FT%TZ > "$OUT/h3/times.txt"
timeout ${T1_S:-290} $K ab --dir "$OUT/h3/ab-t1" --new-env KVB_H3=1 --rounds ${ROUNDS:-6} --budget ${B1_S:-200} \
  -- $shape --threads 1 > "$OUT/h3/ab-t1.log" 2>&1
date -u +%FT%TZ >> "$OUT/h3/times.txt"
timeout ${T16_S:-250} $K ab --dir "$OUT/h3/ab-t16" --new-env KVB_H3=1 --rounds ${ROUNDS:-6} --budget ${B16_S:-170} \
  -- $shape --threads 16 > "$OUT/h3/ab-t16.log" 2>&1
date -u +%FT%TZ >> "$OUT/h3/times.txt"
grep -h "^| attention" "$OUT"/h3/ab-t*/compare.md 2>/dev/null | cut -d"|" -f5,7,10,18,19,23,24,25
cd "$OUT" && tar cJf h3.tar.xz h3 && rm -rf h3
