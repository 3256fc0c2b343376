#!/bin/bash
# One device call (2026-12-07, afternoon): on the EMR host (lscpu model 207) the pass of three
# heads as the tail of a group of 7 on a 16-vCPU Xeon. kvbench ab of one scratch build (bin/kvbench
# of .carry/pack-new.tar.xz: scratch.patch on main 22fc8c1, KVB_H43 in the environment makes a
# group of 4k + 3 heads k passes of four and one of three, not k of four, a pair and a single)
# with KVB_H43=1 against without: attention, 28 layers, 28 q / 4 KV heads (G = 7, Qwen2.5-7B) and
# 32 q / 4 KV (G = 8, code not touched: the control), head_dim 128, 96 positions (L3) and 16384
# (DRAM), fp32, fp16, bf16 and int8, LLC held at 64 MiB as the reference sets do; 1 thread, then
# 16; then fp8 and int4 (below). Each ab stops starting rounds past its --budget (seconds) once
# two have run. On a Sapphire Rapids guest (model 143) the pending ../../xeon-spr-16c-kvm/tile-order/call.sh instead (this
# build without KVB_H43 is main's code). Everything leaves as one archive.
cd "$(dirname "$0")/../../.."
model=$(lscpu | awk '/^Model:/{print $2}')
if [[ $model == 143 ]]; then
  CALL_S=${CALL_S:-400} AB1_S=${AB1_S:-150} AB2_S=${AB2_S:-110} AB3_S=${AB3_S:-60} bash results/xeon-spr-16c-kvm/tile-order/call.sh
  exit
fi
mkdir -p /tmp/pn "$OUT/t3" && tar xJf .carry/pack-new.tar.xz -C /tmp/pn
export LD_LIBRARY_PATH=/tmp/pn/lib KVBENCH_MODELS_DIR=$PWD/configs/models
K=/tmp/pn/bin/kvbench
lscpu > "$OUT/t3/lscpu.txt"; uname -a > "$OUT/t3/uname.txt"
shape="--layers 28 --q-heads 28,32 --kv-heads 4 --head-dim 128 --context 96,16384 --benchmarks attention
  --repetitions 3 --min-time 0.05 --llc 64MiB"
date -u +%FT%TZ > "$OUT/t3/times.txt"
timeout ${T1_S:-230} $K ab --dir "$OUT/t3/ab-t1" --new-env KVB_H43=1 --rounds ${ROUNDS:-8} --budget ${B1_S:-160} \
  -- $shape --dtype fp32,fp16,bf16,int8 --threads 1 > "$OUT/t3/ab-t1.log" 2>&1
date -u +%FT%TZ >> "$OUT/t3/times.txt"
timeout ${T16_S:-170} $K ab --dir "$OUT/t3/ab-t16" --new-env KVB_H43=1 --rounds ${ROUNDS:-8} --budget ${B16_S:-110} \
  -- $shape --dtype fp32,fp16,bf16,int8 --threads 16 > "$OUT/t3/ab-t16.log" 2>&1
date -u +%FT%TZ >> "$OUT/t3/times.txt"
# fp8 and int4 (bin/kvbench-low: scratch-low.patch on main 486d554, KVB_H3LOW switches the pass
# of three on for them): G = 3, 4 (control) and 7, 1 thread. A cut run leaves its finished rounds.
timeout ${TL_S:-150} /tmp/pn/bin/kvbench-low ab --dir "$OUT/t3/ab-low-t1" --new-env KVB_H3LOW=1 --rounds ${ROUNDS:-8} \
  --budget ${BL_S:-90} -- ${shape/--q-heads 28,32/--q-heads 12,16,28} --dtype fp8_e4m3,fp8_e5m2,int4 --threads 1 \
  > "$OUT/t3/ab-low-t1.log" 2>&1
date -u +%FT%TZ >> "$OUT/t3/times.txt"
grep -h "^| attention" "$OUT"/t3/ab-*/compare.md 2>/dev/null | cut -d"|" -f5,7,10,18,19,23,24,25
cd "$OUT" && tar cJf t3.tar.xz t3 && rm -rf t3
