#!/bin/bash
# Session 2026-11-30b on the lent EMR host: why does fp32 attention at G = 8 stream only ~58% of
# the DRAM read ceiling at 1 thread where G = 2 streams ~94% (gqa.csv)? If the core's arithmetic
# and the memory's transfers overlap, G = 8 takes max(memory, arithmetic); if not, their sum.
#   1. DRAM: Qwen3-0.6B shape, 16384 positions, G = 2 and 8 (16 and 64 q heads over 8 KV heads),
#      fp32 and int8, 1 thread, with each software-prefetch hint (t0, t2, none);
#   2. cache-resident: the same heads on 1 layer, 1024 positions (8 MiB fp32: L3), and one KV head
#      of 256 positions (256 KiB fp32: L2), nearly the arithmetic alone.
# Calls: `bash run.sh`, then `ROUND=2 HINTS="t2 t0" bash run.sh` (the hints in the other order).
# Run from the repository root with .carry/pack.tar.xz; everything lands in $OUT.
[ -f .carry/pack.tar.xz ] && tar xJf .carry/pack.tar.xz -C .carry
export LD_LIBRARY_PATH=$PWD/.carry/lib KVBENCH_MODELS_DIR=$PWD/configs/models
k=$PWD/.carry/bin/kvbench.new
cd "$OUT" || exit 1
lscpu > lscpu.txt
common="--head-dim 128 --dtype fp32,int8 --threads 1 --benchmarks attention --llc 64MiB --repetitions 3
        --min-time 0.1"
r=${ROUND:-1}
for pf in ${HINTS:-t0 t2 none}; do
  $k run --model qwen3-0.6b $common --kv-heads 8 --q-heads 16,64 --context 16384 --sw-prefetch "$pf" --ceilings read \
    --out "dram-$pf-$r.csv" > "dram-$pf-$r.log" 2>&1
  echo "$(date -u +%H:%M:%S) dram $pf rc=$?"; grep -E '^attention' "dram-$pf-$r.log" | tail -4
done
$k run --model custom --layers 1 $common --kv-heads 8 --q-heads 16,64 --context 1024 --ceilings read --out "l3-$r.csv" > "l3-$r.log" 2>&1
echo "$(date -u +%H:%M:%S) l3 rc=$?"; grep -E '^attention' "l3-$r.log" | tail -4
$k run --model custom --layers 1 $common --kv-heads 1 --q-heads 2,8 --context 256 --ceilings read \
  --out "l2-$r.csv" > "l2-$r.log" 2>&1
echo "$(date -u +%H:%M:%S) l2 rc=$?"; grep -E '^attention' "l2-$r.log" | tail -4
