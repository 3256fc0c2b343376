#!/bin/bash
# Session 2026-11-27e, call 1: the read ceiling at all 16 threads with main 2972451 (static
# split, kv_base) and e842bab (the LLC and DRAM read in claimed chunks, kv_new), alternating
# rounds; then the reference steps `topo ceilings targets` with e842bab (steps.sh of
# session-2026-11-27, which also unpacks .carry/pack.tar.xz). ROUNDS and BUDGET as set.
tar xJf .carry/pack.tar.xz -C .carry
export LD_LIBRARY_PATH=$PWD/.carry/lib KVBENCH_MODELS_DIR=$PWD/configs/models
mkdir -p "$OUT/ab"
for r in $(seq 1 "${ROUNDS:-3}"); do
  for b in base new; do
    .carry/bin/kv_$b ceilings --threads all --llc 64MiB > "$OUT/ab/ceilings-$b-$r.txt" 2>&1
  done
done
tar cJf "$OUT/ceilings-ab.tar.xz" -C "$OUT" ab && rm -rf "$OUT/ab"
[ -n "$STEPS" ] && bash results/xeon-emr-16c-kvm/session-2026-11-27/steps.sh
