#!/bin/bash
# One device call (see README.md here): kvbench ab of the attention window's PREFETCHNTA against
# PREFETCHT0, one scratch binary for both arms (bin/kvbench-nta: main 93322cf with the t2 hint
# made NTA, ../../epyc-zen5-2c-kvm-508m/stream-work/nta.patch), decode_step from DRAM at 1 and 16
# threads. From the carried pack (.carry/pack.tar.xz); comes back as $OUT/nta-ab.tar.xz.
set -u
self=$(readlink -f "$0")
cd "$(dirname "$self")/../../.."
mkdir -p /tmp/pk && tar xJf .carry/pack.tar.xz -C /tmp/pk
export LD_LIBRARY_PATH=/tmp/pk/lib KVBENCH_MODELS_DIR=$PWD/configs/models
dir=$OUT/nta-ab
mkdir -p "$dir"
date -u > "$dir/started.txt"
/tmp/pk/bin/kvbench-nta ab --dir "$dir/ab" --new-args '--sw-prefetch t2' --rounds 8 --budget 420 -- \
  --model qwen3-0.6b --context 9363 --dtype fp32,bf16,int8 --threads 1,16 --benchmarks decode_step \
  --repetitions 5 --min-time 0.1 --ceiling-bracket --llc 64MiB --ceilings barrier > "$dir/ab.log" 2>&1
echo "ab rc=$? $SECONDS" >> "$dir/index.txt"
date -u >> "$dir/started.txt"
cp "$self" "$dir/call.sh"
tar cJf "$OUT/nta-ab.tar.xz" -C "$OUT" nta-ab && rm -rf "$dir"
