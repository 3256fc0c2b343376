#!/bin/bash
# Session 2026-11-27: steps of results/reference-run.sh with main's carried release build (every
# row names its commit), at 1-16 threads, the LLC held at 64 MiB (LLC=64MiB, as in 2026-11-26g)
# and the vendor step on the trimmed grid of the earlier EMR sets (README). STEPS picks the steps.
# The run stops at BUDGET seconds so its files still come back as one archive (a device call
# returns at most 8 files, and none of a command killed at its limit).
# The binaries come as .carry/pack.tar.xz or already unpacked in .carry/bin and .carry/lib.
# Since 2026-12-03: THREADS= splits the targets step across calls (default 1,2,4,8,16), and a
# pack with .carry/likwid (likwid-bench, likwid-accessD) and .carry/harness/kvbench-harness-info
# runs the likwid step.
[ -f .carry/pack.tar.xz ] && tar xJf .carry/pack.tar.xz -C .carry
export LD_LIBRARY_PATH=$PWD/.carry/lib KVBENCH_MODELS_DIR=$PWD/configs/models
[ -d .carry/likwid ] && export PATH=$PWD/.carry/likwid:$PATH HARNESS_BUILD=.carry
KVBENCH=.carry/bin/kvbench THREADS=${THREADS:-1,2,4,8,16} LLC=${LLC-64MiB} ONLY="$STEPS" \
  timeout "${BUDGET:-560}" results/reference-run.sh "$OUT/emr" --context 4096,16384 --kv-heads 8,1 \
  --threads 1,2,4,8,16 --cache-state warm --benchmarks decode_step,append \
  --dtype fp32,fp16,bf16,int8 --repetitions 3 --min-time 0.05
cat "$OUT/emr/commands.txt"
tar cJf "$OUT/emr-$(echo $STEPS | tr ' ' '-').tar.xz" -C "$OUT" emr && rm -rf "$OUT/emr"
