#!/bin/bash
# Session 2026-12-03: the EMR reference set again with one build (main after 290788c, whose bursts time
# each worker and whose ceiling_fma rows name their slowest one; every row names its commit), in device calls of at most 600 s:
# CALL=A topo, ceilings, likwid and the targets step at 1 and 2 threads; CALL=B the targets step at
# 4, 8 and 16 threads; CALL=C default, peer, vendor; CALL=D gqa, llcfit. Each runs
# ../session-2026-11-27/steps.sh and returns one archive; merge them with
# ../session-2026-11-27/merge.sh, B's targets.csv rows added to A's.
cd "$(dirname "$0")/../../.."
steps=results/xeon-emr-16c-kvm/session-2026-11-27/steps.sh
case ${CALL:?CALL=A, B, C or D} in
  A) STEPS="topo ceilings likwid targets" THREADS=1,2 BUDGET=560 bash $steps ;;
  B) STEPS="targets" THREADS=4,8,16 BUDGET=570 bash $steps ;;
  C) STEPS="default peer vendor" BUDGET=570 bash $steps ;;
  D) STEPS="gqa llcfit" BUDGET=570 bash $steps ;;
esac
