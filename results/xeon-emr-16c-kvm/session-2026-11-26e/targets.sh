#!/bin/bash
# Session 2026-11-26e, calls 2 and 3 (main 4553f4b, whose kernels are 7f949af's): the target
# steps of results/reference-run.sh with the carried release build. STEPS picks them:
#   STEPS="topo ceilings targets" (call 2)    STEPS="gqa" (call 3)
tar xJf .carry/pack.tar.xz -C .carry
export LD_LIBRARY_PATH=$PWD/.carry/lib KVBENCH_MODELS_DIR=$PWD/configs/models
KVBENCH=.carry/bin/kvbench THREADS=1,2,4,8,16 STEP_TIMEOUT=${STEP_TIMEOUT:-540} ONLY="$STEPS" \
  results/reference-run.sh "$OUT/emr"
cat "$OUT/emr/commands.txt"; grep -h -m1 -E "LLC .*(kept|measured)" "$OUT"/emr/*.log "$OUT"/emr/topo*.txt 2>/dev/null
# At most 8 files come back from a device call: the step files go as one archive.
tar cJf "$OUT/emr-$(echo $STEPS | tr ' ' '-').tar.xz" -C "$OUT" emr && rm -rf "$OUT/emr"
