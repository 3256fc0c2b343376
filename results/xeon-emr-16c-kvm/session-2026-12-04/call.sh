#!/bin/bash
# Session 2026-12-04: the EMR reference set again with one build (main fc33868: the fp16, bf16 and
# int8 token encoders of the append, fresh-slot prefetch for int8, the FMA ceiling's fastest of up
# to 4 bursts), in four device calls of at most 600 s. Three repetitions per row instead of five
# (REPETITIONS=3), so the whole set fits one session's 1,800 s of device time, and no likwid step
# (the read ceiling's code is 2026-12-03's, cross-checked then):
# CALL=A topo, ceilings, default, llcfit and the targets step at 1 and 2 threads; CALL=B the targets
# step at 4, 8 and 16 threads; CALL=C peer and vendor; CALL=D gqa. Each runs
# ../session-2026-11-27/steps.sh and returns one archive; merge them with
# ../session-2026-11-27/merge.sh, B's targets.csv rows added to A's.
cd "$(dirname "$0")/../../.."
steps=results/xeon-emr-16c-kvm/session-2026-11-27/steps.sh
export REPETITIONS=3
case ${CALL:?CALL=A, B, C or D} in
  A) STEPS="topo ceilings default llcfit targets" THREADS=1,2 BUDGET=560 bash $steps ;;
  B) STEPS="targets" THREADS=4,8,16 BUDGET=580 bash $steps ;;
  C) STEPS="peer vendor" BUDGET=580 bash $steps ;;
  D) STEPS="gqa" BUDGET=330 bash $steps ;;
esac
