#!/bin/bash
# Session 2026-11-25 (ninth), fourth call: the gqa step with main 40be848, threads 1,16.
export LD_LIBRARY_PATH=$PWD/.carry/lib
KVBENCH=.carry/bin/kvbench THREADS=1,2,4,8,16 ONLY="gqa" results/reference-run.sh $OUT/emr
