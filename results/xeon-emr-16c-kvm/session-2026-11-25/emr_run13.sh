#!/bin/bash
# Session 2026-11-25 (seventh), fourth call: the phase breakdown with the committed harness
# (results/epyc-zen5-2c-kvm/phase-breakdown/, main f9251b2), EMR contexts, pinned to PU 2.
export LD_LIBRARY_PATH=$PWD/.carry/lib
log() { echo "# $(date -u +%FT%TZ) $*" | tee -a $OUT/commands.txt; }
log "phase-breakdown/run.sh .carry/diag2 (PU=2, 3 rounds)"
t0=$SECONDS
PU=2 ROUNDS=3 bash .carry/diag2/run.sh .carry/diag2 "fp32:96:685:5486 fp16:192:1371:10972 bf16:192:1371:10972 int8:384:2659:21278" > $OUT/phases.txt 2>&1
echo "  -> exit $? after $((SECONDS-t0)) s" | tee -a $OUT/commands.txt
timeout 60 .carry/bin/kvbench ceilings --threads 1 --pin pus:2 > $OUT/ceilings-1t.txt 2>&1
cd $OUT && tar czf emr13.tgz *.txt
