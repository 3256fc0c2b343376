#!/bin/bash
# Session 2026-11-25 (eleventh), fourth call: the gqa step with main dbd082a, threads 1,16.
export LD_LIBRARY_PATH=$PWD/.carry/lib
KVBENCH=.carry/bin/kvbench THREADS=1,2,4,8,16 ONLY="gqa" STEP_TIMEOUT=400 results/reference-run.sh $OUT/emr
