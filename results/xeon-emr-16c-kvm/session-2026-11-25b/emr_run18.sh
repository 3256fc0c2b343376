#!/bin/bash
# Session 2026-11-25 (eighth), fourth call: the phase harness with int8 scores from VNNI on a
# one-limb query ("q8", results/epyc-zen5-2c-kvm/phase-breakdown/make_variants.py) against the
# unchanged kernel ("cur"), main 497a663's attention.cc, int8 G = 2 at this host's L2-, LLC- and
# DRAM-sized contexts, pinned to PU 2, three alternating rounds.
export LD_LIBRARY_PATH=$PWD/.carry/lib
log() { echo "# $(date -u +%FT%TZ) $*" | tee -a $OUT/commands.txt; }
log "phase harness cur vs q8, int8, PU 2, 3 rounds"
for r in 1 2 3; do for v in cur q8; do
  echo "r$r $v $(taskset -c 2 .carry/diag3/phase_$v 1 384 2 int8 2000 0)"
  echo "r$r $v $(taskset -c 2 .carry/diag3/phase_$v 28 2659 2 int8 40 1)"
  echo "r$r $v $(taskset -c 2 .carry/diag3/phase_$v 28 21278 2 int8 3 1)"
done; done | tee $OUT/q8-phases.txt
log "done"
