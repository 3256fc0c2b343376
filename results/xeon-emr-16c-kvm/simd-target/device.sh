#!/bin/bash
# One device call (2026-12-07, evening), on the EMR host (lscpu model 207):
# 1. AVX-512 against AVX2 in one binary (bin/kvbench-main of .carry/pack-new.tar.xz: main 9c75722,
#    release): kvbench ab --new-args '--simd-target avx2', Qwen3-0.6B decode_step, fp32, bf16 and
#    int8, 96 positions (L3) and 8192 (DRAM), 1 thread, LLC held at 64 MiB as the reference sets
#    do; the ceilings are measured under each arm's target too.
# 2. The pass of three for G = 7 once more (the afternoon call's 1-thread A/B had 2 rounds):
#    bin/kvbench (../../epyc-zen5-2c-oxide/tail-of-three/scratch.patch on main 22fc8c1) with
#    KVB_H43=1 against without, 28 layers, 28 q / 4 KV heads (G = 7) and 32 q (G = 8, the
#    control), 16384 positions, every 8-bit-or-wider dtype, 1 thread, read ceilings only.
# Each ab stops starting rounds past its --budget (seconds) once two have run; a run cut by the
# call's limit leaves its finished rounds. On a Sapphire Rapids guest (model 143) the pending
# ../../xeon-spr-16c-kvm/tile-order/call.sh instead. Everything leaves as one archive.
cd "$(dirname "$0")/../../.."
model=$(lscpu | awk '/^Model:/{print $2}')
if [[ $model == 143 ]]; then
  CALL_S=${CALL_S:-400} AB1_S=${AB1_S:-150} AB2_S=${AB2_S:-110} AB3_S=${AB3_S:-60} bash results/xeon-spr-16c-kvm/tile-order/call.sh
  exit
fi
mkdir -p /tmp/pn "$OUT/st" && tar xJf .carry/pack-new.tar.xz -C /tmp/pn
export LD_LIBRARY_PATH=/tmp/pn/lib KVBENCH_MODELS_DIR=$PWD/configs/models
lscpu > "$OUT/st/lscpu.txt"; uname -a > "$OUT/st/uname.txt"
/tmp/pn/bin/kvbench-main topo --llc 64MiB > "$OUT/st/topo.txt" 2>&1
date -u +%FT%TZ > "$OUT/st/times.txt"
timeout ${ISA_S:-230} /tmp/pn/bin/kvbench-main ab --dir "$OUT/st/ab-isa" --new-args '--simd-target avx2' \
  --rounds ${ROUNDS:-8} --budget ${BISA_S:-170} -- --model qwen3-0.6b --benchmarks decode_step \
  --context 96,8192 --dtype fp32,bf16,int8 --threads 1 --repetitions 3 --min-time 0.05 --llc 64MiB \
  > "$OUT/st/ab-isa.log" 2>&1
date -u +%FT%TZ >> "$OUT/st/times.txt"
timeout ${G7_S:-200} /tmp/pn/bin/kvbench ab --dir "$OUT/st/ab-g7" --new-env KVB_H43=1 --rounds ${ROUNDS:-8} \
  --budget ${BG7_S:-140} -- --layers 28 --q-heads 28,32 --kv-heads 4 --head-dim 128 --context 16384 \
  --benchmarks attention --dtype fp32,fp16,bf16,int8 --threads 1 --repetitions 3 --min-time 0.05 \
  --ceilings read --llc 64MiB > "$OUT/st/ab-g7.log" 2>&1
date -u +%FT%TZ >> "$OUT/st/times.txt"
grep -h "^| decode_step\|^| attention" "$OUT"/st/ab-*/compare.md 2>/dev/null | cut -d"|" -f5,7,10,18,19,23,24,25
cd "$OUT" && tar cJf st.tar.xz st && rm -rf st
