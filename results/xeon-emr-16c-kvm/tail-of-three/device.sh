#!/bin/bash
# One device call (2026-12-07, evening): the EMR host's confirmation of the pass of three heads
# that ends a group of 7 (landed on the Zen 5 guest's A/Bs, ../../epyc-zen5-2c-oxide/tail-of-three/),
# shaped so that an A/B holds enough rounds: the two afternoon calls ran every ceiling and 28
# layers per run (40-60 s a run there, 1-2 rounds). Here no ceilings (a time ratio needs none),
# one layer checked against the double reference, 8 layers: 384 positions (12.6 MiB of fp32, in
# the L3) and 16384 (537 MiB, past 4x the 64 MiB the sets hold the LLC at).
# Builds in .carry/pack-new.tar.xz: bin/kvbench = ../../epyc-zen5-2c-oxide/tail-of-three/scratch.patch
# on main 22fc8c1 (KVB_H43 in the environment: a group of 4k + 3 heads takes k passes of four and
# one of three, not k of four, a pair and a single; G = 8 untouched, the control); bin/kvbench-low
# = scratch-low.patch on main 486d554 (KVB_H3LOW: the pass of three for fp8 and int4).
# AB1 1 thread, AB2 16 threads (fp32, bf16, int8; G = 7 and 8); AB3 fp8 e4m3 and int4 at G = 3, 4
# (control) and 7, 1 thread. Each ab stops starting rounds past its --budget once two have run;
# a cut run leaves its finished rounds. On a Sapphire Rapids guest (model 143) the pending
# ../../xeon-spr-16c-kvm/tile-order/call.sh runs instead. Everything leaves as one archive.
cd "$(dirname "$0")/../../.."
model=$(lscpu | awk '/^Model:/{print $2}')
if [[ $model == 143 ]]; then
  CALL_S=${CALL_S:-520} bash results/xeon-spr-16c-kvm/tile-order/call.sh
  exit
fi
mkdir -p /tmp/pn "$OUT/g7" && tar xJf .carry/pack-new.tar.xz -C /tmp/pn
export LD_LIBRARY_PATH=/tmp/pn/lib KVBENCH_MODELS_DIR=$PWD/configs/models
K=/tmp/pn/bin/kvbench
lscpu > "$OUT/g7/lscpu.txt"; uname -a > "$OUT/g7/uname.txt"
shape="--layers 8 --q-heads 28,32 --kv-heads 4 --head-dim 128 --context 384,16384 --benchmarks attention
  --repetitions 3 --min-time 0.05 --llc 64MiB --ceilings none --validate-layers 1"
date -u +%FT%TZ > "$OUT/g7/times.txt"
timeout ${T1_S:-230} $K ab --dir "$OUT/g7/ab-t1" --new-env KVB_H43=1 --rounds ${ROUNDS:-10} --budget ${B1_S:-190} \
  -- $shape --dtype fp32,bf16,int8 --threads 1 > "$OUT/g7/ab-t1.log" 2>&1
date -u +%FT%TZ >> "$OUT/g7/times.txt"
timeout ${T16_S:-150} $K ab --dir "$OUT/g7/ab-t16" --new-env KVB_H43=1 --rounds ${ROUNDS:-10} --budget ${B16_S:-120} \
  -- $shape --dtype fp32,bf16,int8 --threads 16 > "$OUT/g7/ab-t16.log" 2>&1
date -u +%FT%TZ >> "$OUT/g7/times.txt"
timeout ${TL_S:-130} /tmp/pn/bin/kvbench-low ab --dir "$OUT/g7/ab-low-t1" --new-env KVB_H3LOW=1 --rounds ${ROUNDS:-10} \
  --budget ${BL_S:-100} -- ${shape/--q-heads 28,32/--q-heads 12,16,28} --dtype fp8_e4m3,int4 --threads 1 \
  > "$OUT/g7/ab-low-t1.log" 2>&1
date -u +%FT%TZ >> "$OUT/g7/times.txt"
grep -h "^| attention" "$OUT"/g7/ab-*/compare.md 2>/dev/null | cut -d"|" -f5,7,10,18,19,23,24,25
cd "$OUT" && tar cJf g7.tar.xz g7 && rm -rf g7
