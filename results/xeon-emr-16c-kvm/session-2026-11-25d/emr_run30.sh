#!/bin/bash
# Session 2026-11-25 (eleventh), third call: ceilings and targets with main dbd082a, threads 1-16.
export LD_LIBRARY_PATH=$PWD/.carry/lib
KVBENCH=.carry/bin/kvbench THREADS=1,2,4,8,16 ONLY="topo ceilings targets" STEP_TIMEOUT=480 \
  results/reference-run.sh $OUT/emr
rm -f $OUT/emr/uname.txt
