#!/bin/bash
# The device call of this folder (2026-12-03): kvbench ab on the lent EMR host, the int8 V rows
# with VPDPBUSD (KVBENCH_VNNI=1) against the FMA path, one binary (main 6e849bc, carried in
# .carry/pack.tar.xz), decode_step int8 Qwen3-0.6B at an LLC and a DRAM context, 1 thread then 16.
self=$(readlink -f "$0")
cd "$(dirname "$self")/../../.."
mkdir -p /tmp/pk && tar xJf .carry/pack.tar.xz -C /tmp/pk
export LD_LIBRARY_PATH=/tmp/pk/lib KVBENCH_MODELS_DIR=$PWD/configs/models
lscpu > "$OUT/lscpu.txt"
for t in 1 16; do
  if [ "$t" = 1 ]; then pin=pus:1; else pin=compact; fi
  /tmp/pk/bin/kvbench ab --dir "$OUT/ab-${t}t" --new-env KVBENCH_VNNI=1 --rounds "${ROUNDS:-6}" --budget "${BUDGET:-150}" -- \
    --model qwen3-0.6b --dtype int8 --context 851,18158 --threads "$t" --pin "$pin" --llc 64MiB \
    --benchmarks decode_step --repetitions 3 --ceilings none > "$OUT/ab-${t}t.out" 2>&1
  echo "ab ${t}T rc=$? $(date -u +%H:%M:%S)"
done
