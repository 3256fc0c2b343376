#!/bin/bash
# Session 2026-11-25 (seventh), second call: prefetch distance of the attention kernel at 1 thread
# from DRAM (scratch builds of kernels/attention.cc at f9251b2: kPrefetchBytes 1-16 KB, T1 hint, none).
export LD_LIBRARY_PATH=$PWD/.carry/lib
D=.carry/diag
log() { echo "# $(date -u +%FT%TZ) $*" | tee -a $OUT/commands.txt; }
t0=$SECONDS
log "prefetch distance, 3 alternating rounds"
for rnd in 1 2 3; do
for dt in fp32 fp16 bf16 int8; do
  case $dt in fp32) cd=5486;; fp16|bf16) cd=10972;; int8) cd=21278;; esac
  for v in cur pf1024 pf2048 pf8192 pf16384 t1 nopf; do
    echo "r$rnd $v $(taskset -c 2 $D/h2_$v 28 $cd 2 $dt 3 1)" | tee -a $OUT/distance.txt
  done
done
done
echo "  -> after $((SECONDS-t0)) s" | tee -a $OUT/commands.txt
log "kvbench ceilings --threads 1"
timeout 60 .carry/bin/kvbench ceilings --threads 1 --pin pus:2 > $OUT/ceilings-1t-after.txt 2>&1
cd $OUT && tar czf emr11.tgz *.txt
