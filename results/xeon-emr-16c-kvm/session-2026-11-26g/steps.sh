#!/bin/bash
# Session 2026-11-26g: steps of results/reference-run.sh with main's carried release build (every
# row names its commit), at 1-16 threads, with the LLC held at 64 MiB (LLC=64MiB: what this host's
# one-core knee gave in most probes; it wanders 64-128 MiB between runs). STEPS picks the steps.
tar xJf .carry/pack.tar.xz -C .carry
export LD_LIBRARY_PATH=$PWD/.carry/lib KVBENCH_MODELS_DIR=$PWD/configs/models
KVBENCH=.carry/bin/kvbench THREADS=1,2,4,8,16 LLC=${LLC-64MiB} STEP_TIMEOUT=${STEP_TIMEOUT:-540} \
  ONLY="$STEPS" results/reference-run.sh "$OUT/emr"
cat "$OUT/emr/commands.txt"
# At most 8 files come back from a device call: the step files go as one archive.
tar cJf "$OUT/emr-$(echo $STEPS | tr ' ' '-').tar.xz" -C "$OUT" emr && rm -rf "$OUT/emr"
