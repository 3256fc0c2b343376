#!/bin/bash
# Session 2026-11-25 (eighth), fifth call: the phase harness, int8 G = 2, unchanged kernel (cur),
# with the split prefetch scheme (cursplit: K rows prefetched while scoring, V rows while
# accumulating, instead of both from the score phase), one-limb VNNI scores (q8) and both
# (q8split4k), this host's L2/LLC/DRAM contexts, PU 2, three alternating rounds.
export LD_LIBRARY_PATH=$PWD/.carry/lib
log() { echo "# $(date -u +%FT%TZ) $*" | tee -a $OUT/commands.txt; }
log "phase harness cur / cursplit / q8 / q8split4k, int8, PU 2, 3 rounds"
for r in 1 2 3; do for v in cur cursplit q8 q8split4k; do
  echo "r$r $v $(taskset -c 2 .carry/diag3/phase_$v 1 384 2 int8 2000 0)"
  echo "r$r $v $(taskset -c 2 .carry/diag3/phase_$v 28 2659 2 int8 40 1)"
  echo "r$r $v $(taskset -c 2 .carry/diag3/phase_$v 28 21278 2 int8 3 1)"
done; done | tee $OUT/q8-split-phases.txt
log "done"
