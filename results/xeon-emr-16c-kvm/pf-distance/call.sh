#!/bin/bash
# One device call (see README.md here): the attention window 8 KB and 2 KB ahead against the
# default 4 KB, two kvbench ab runs of one scratch binary (bin/kvbench-pf: this commit's source
# with the window's bytes read from KVBENCH_PF_BYTES), decode_step from DRAM at 1 and 16 threads.
# From the carried pack (.carry/pack.tar.xz); comes back as $OUT/pf-distance.tar.xz.
set -u
self=$(readlink -f "$0")
cd "$(dirname "$self")/../../.."
mkdir -p /tmp/pk && tar xJf .carry/pack.tar.xz -C /tmp/pk
export LD_LIBRARY_PATH=/tmp/pk/lib KVBENCH_MODELS_DIR=$PWD/configs/models
dir=$OUT/pf-distance
mkdir -p "$dir"
date -u > "$dir/started.txt"
for bytes in 8192 2048; do
  /tmp/pk/bin/kvbench-pf ab --dir "$dir/ab-$bytes" --new-env KVBENCH_PF_BYTES=$bytes --rounds 5 --budget 170 -- \
    --model qwen3-0.6b --context 9363 --dtype fp32,bf16,int8 --threads 1,16 --benchmarks decode_step \
    --repetitions 5 --min-time 0.1 --ceiling-bracket --llc 64MiB --ceilings barrier > "$dir/ab-$bytes.log" 2>&1
  echo "ab-$bytes rc=$? $SECONDS" >> "$dir/index.txt"
done
date -u >> "$dir/started.txt"
cp "$self" "$dir/call.sh"
tar cJf "$OUT/pf-distance.tar.xz" -C "$OUT" pf-distance && rm -rf "$dir"
