#!/bin/bash
# The session's third device call (2026-12-07): on the Sapphire Rapids guest (family 6 model 143)
# the pending tile-order call (../../xeon-spr-16c-kvm/tile-order/call.sh, main 856a3ff's build as
# bin/kvbench, trimmed to 400 s); on the EMR host (model 207) main 856a3ff's kvbench (the landed
# pass of three heads) against 488ff88's (bin/kvbench-488): attention at 1 thread, 28 layers,
# G = 3 (24 q / 8 KV) and G = 4 (32 q, untouched code), 48 and 16384 positions, fp32, fp16 and
# int8, LLC held at 64 MiB, alternating rounds until a 330 s budget.
cd "$(dirname "$0")/../../.."
model=$(lscpu | awk '/^Model:/{print $2}')
if [[ $model == 143 ]]; then
  CALL_S=${CALL_S:-400} AB1_S=${AB1_S:-150} AB2_S=${AB2_S:-110} AB3_S=${AB3_S:-60} bash results/xeon-spr-16c-kvm/tile-order/call.sh
  exit
fi
mkdir -p /tmp/pn "$OUT/b" && tar xJf .carry/pack-new.tar.xz -C /tmp/pn
export LD_LIBRARY_PATH=/tmp/pn/lib KVBENCH_MODELS_DIR=$PWD/configs/models
lscpu > "$OUT/b/lscpu.txt"; uname -a > "$OUT/b/uname.txt"
timeout ${T_S:-420} /tmp/pn/bin/kvbench ab --dir "$OUT/b/ab-builds-t1" --base /tmp/pn/bin/kvbench-488 \
  --new /tmp/pn/bin/kvbench --rounds 8 --budget ${B_S:-330} -- --layers 28 --q-heads 24,32 --kv-heads 8 \
  --head-dim 128 --context 48,16384 --benchmarks attention --dtype fp32,fp16,int8 --repetitions 3 \
  --min-time 0.05 --llc 64MiB --threads 1 > "$OUT/b/ab.log" 2>&1
grep -h "^| attention" "$OUT"/b/ab-builds-t1/compare.md | cut -d"|" -f5,7,10,18,19,23,24,25
cd "$OUT" && tar cJf builds.tar.xz b && rm -rf b
