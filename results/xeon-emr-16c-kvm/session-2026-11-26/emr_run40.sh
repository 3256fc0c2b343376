#!/bin/bash
# Session 2026-11-26, first call: what the LLC probe (main 7c09e50) makes of the host's 300 MiB
# L3 (topo with --llc measure, then auto), the ceilings, the default sweep and the targets at
# 1, 4 and 16 threads with --llc auto.
export LD_LIBRARY_PATH=$PWD/.carry/lib
o=$OUT/emr; mkdir -p $o
.carry/bin/kvbench topo --llc measure > $o/topo-measure.txt 2>&1
KVBENCH=.carry/bin/kvbench THREADS=1,4,16 ONLY="topo ceilings default targets" STEP_TIMEOUT=420 \
  results/reference-run.sh $o
rm -f $o/uname.txt
tail -25 $o/topo-measure.txt; tail -3 $o/topo.txt; cat $o/commands.txt
