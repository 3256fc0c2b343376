#!/bin/bash
# Session 2026-11-25 (eighth), one call: the int8 score-phase microbenchmark
# (results/epyc-zen5-2c-kvm/phase-breakdown/vnni_scores.cc), pinned to PU 2, two rounds.
log() { echo "# $(date -u +%FT%TZ) $*" | tee -a $OUT/commands.txt; }
log "vnni_scores 2048/16384 rows, 200/50 repetitions, two rounds, taskset -c 2"
grep -m1 "model name" /proc/cpuinfo | tee -a $OUT/commands.txt
grep -o -w "avx512_vnni\|amx_int8\|avx512_bf16" /proc/cpuinfo | sort | uniq -c | tee -a $OUT/commands.txt
for r in 1 2; do taskset -c 2 .carry/diag2/vnsc 2048 200; taskset -c 2 .carry/diag2/vnsc 16384 50; done | tee $OUT/vnni_scores.txt
