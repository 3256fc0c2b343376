#!/bin/bash
# Session 2026-11-26f: steps of results/reference-run.sh with main's carried release build (every
# row names its commit), at 1-16 threads. STEPS picks them, e.g. STEPS="topo ceilings targets";
# the vendor step takes the trimmed grid of the earlier EMR sets (README).
tar xJf .carry/pack.tar.xz -C .carry
export LD_LIBRARY_PATH=$PWD/.carry/lib KVBENCH_MODELS_DIR=$PWD/configs/models
KVBENCH=.carry/bin/kvbench THREADS=1,2,4,8,16 STEP_TIMEOUT=${STEP_TIMEOUT:-480} ONLY="$STEPS" \
  results/reference-run.sh "$OUT/emr" --context 4096,16384 --kv-heads 8,1 --threads 1,2,4,8,16 \
  --cache-state warm --benchmarks decode_step,append --dtype fp32,fp16,bf16,int8 --repetitions 3 \
  --min-time 0.05
cat "$OUT/emr/commands.txt"; grep -h -m1 -E "LLC .*(kept|measured)" "$OUT"/emr/*.log "$OUT"/emr/topo*.txt 2>/dev/null
# At most 8 files come back from a device call: the step files go as one archive.
tar cJf "$OUT/emr-$(echo $STEPS | tr ' ' '-').tar.xz" -C "$OUT" emr && rm -rf "$OUT/emr"
