#!/bin/bash
# One device call (see README.md here): kernel_bench overlap_threads/ at 1-16 threads (a DRAM
# stream bare, with the kernels' 4 KB window, with 4 or 8 FMAs per vector) in three rounds, and
# between them two kvbench runs of decode_step from DRAM with each row's own read ceiling
# bracketed. From the carried pack (.carry/pack.tar.xz: bin/kvbench, bin/kernel_bench, lib/).
# Everything comes back as $OUT/stream-work.tar.xz.
set -u
self=$(readlink -f "$0")
cd "$(dirname "$self")/../../.."
mkdir -p /tmp/pk && tar xJf .carry/pack.tar.xz -C /tmp/pk
export LD_LIBRARY_PATH=/tmp/pk/lib KVBENCH_MODELS_DIR=$PWD/configs/models
dir=$OUT/stream-work
mkdir -p "$dir"
date -u > "$dir/started.txt"
lscpu > "$dir/lscpu.txt"
for r in 1 2 3; do
  /tmp/pk/bin/kernel_bench --benchmark_filter='^overlap_threads/fma:(0|4|8)/threads:(1|2|4|8|16)/' \
    --benchmark_repetitions=3 --benchmark_report_aggregates_only=true \
    --benchmark_out="$dir/overlap-threads-$r.json" --benchmark_out_format=json > "$dir/overlap-threads-$r.txt" 2>&1
  echo "overlap-threads-$r rc=$? $SECONDS" >> "$dir/index.txt"
  [ "$r" = 3 ] && break
  /tmp/pk/bin/kvbench run --model qwen3-0.6b --context 9363 --dtype fp32,bf16,int8 --threads 1,2,4,8,16 \
    --benchmarks decode_step --repetitions 5 --min-time 0.1 --ceiling-bracket --ceilings barrier --llc 64MiB \
    --out "$dir/decode-$r.csv" > "$dir/decode-$r.log" 2>&1
  echo "decode-$r rc=$? $SECONDS" >> "$dir/index.txt"
done
date -u >> "$dir/started.txt"
cp "$self" "$dir/call.sh"
tar cJf "$OUT/stream-work.tar.xz" -C "$OUT" stream-work && rm -rf "$dir"
