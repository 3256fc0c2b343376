#!/bin/bash
# Session 2026-11-25 (seventh): per-phase cost of the attention kernel at 1 thread (scratch
# builds of kernels/attention.cc at f9251b2 with phases knocked out; timing only).
export LD_LIBRARY_PATH=$PWD/.carry/lib
D=.carry/diag
log() { echo "# $(date -u +%FT%TZ) $*" | tee -a $OUT/commands.txt; }
log "lscpu"; lscpu > $OUT/lscpu.txt
log "kvbench ceilings --threads 1"
timeout 120 .carry/bin/kvbench ceilings --threads 1 --pin pus:2 > $OUT/ceilings-1t.txt 2>&1
t0=$SECONDS
log "phase breakdown"
for rnd in 1 2; do
for dt in fp32 fp16 bf16 int8; do
  case $dt in fp32) c2=96; cd=5486;; fp16|bf16) c2=192; cd=10972;; int8) c2=384; cd=21278;; esac
  for v in cur nopf sconly aconly smonly; do
    echo "r$rnd $v $(taskset -c 2 $D/h2_$v 1 $c2 2 $dt 2000 0)" | tee -a $OUT/phases.txt
    echo "r$rnd $v $(taskset -c 2 $D/h2_$v 28 $cd 2 $dt 3 1)" | tee -a $OUT/phases.txt
  done
  for G in 1 8; do echo "r$rnd cur $(taskset -c 2 $D/h2_cur 28 $cd $G $dt 3 1)" | tee -a $OUT/phases.txt; done
done
done
echo "  -> after $((SECONDS-t0)) s" | tee -a $OUT/commands.txt
cd $OUT && tar czf emr10.tgz *.txt
