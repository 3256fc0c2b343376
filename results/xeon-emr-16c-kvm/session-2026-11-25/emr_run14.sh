#!/bin/bash
# Session 2026-11-25 (seventh), fifth call: the VNNI int8 V-accumulation microbenchmark
# (results/epyc-zen5-2c-kvm/phase-breakdown/vnni_v_accumulate.cc), pinned to PU 2, two rounds.
log() { echo "# $(date -u +%FT%TZ) $*" | tee -a $OUT/commands.txt; }
log "vnni_v_accumulate 256/2048/16384 rows, 300 repetitions, two rounds"
for r in 1 2; do for n in 256 2048 16384; do taskset -c 2 .carry/diag2/vnchk $n 300; done; done | tee $OUT/vnni_v_accumulate.txt
