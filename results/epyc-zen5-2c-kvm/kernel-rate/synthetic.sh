#!/bin/bash
# synthetic.sh OUTDIR [ROUNDS]: on one core (PU 1), ROUNDS rounds of (1) kvbench's DRAM read
# ceiling at 1 thread, (2) ../../epyc-zen4-2c-kvm/kernel-rate/kv_order.cc, the fp32 kernel's
# access shape as a bare loop (two FMAs per loaded vector, no softmax or lane sums, 1 GiB laid out
# as K and V per item, huge pages), built with its prefetch window's hint as PREFETCHT0 (this
# CPU's `auto`) and as PREFETCHT2, and (3) kvbench decode_step fp32 at the DRAM context of the
# Qwen3-0.6B targets. Run from the repository root with build/kvbench built (KVBENCH names another
# binary; PREBUILT=DIR takes kv_order_T0 and kv_order_T2 from DIR instead of compiling them, for
# a host without a compiler; KVBENCH_ARGS go to both kvbench commands, e.g. --llc 64MiB).
set -euo pipefail
out=${1:?usage: synthetic.sh OUTDIR [ROUNDS]}
rounds=${2:-3}
mkdir -p "$out"
src=results/epyc-zen4-2c-kvm/kernel-rate/kv_order.cc
kvbench=${KVBENCH:-build/kvbench}
args=${KVBENCH_ARGS:-}
for hint in T0 T2; do
  if [ -n "${PREBUILT:-}" ]; then cp "$PREBUILT/kv_order_$hint" "$out/"; continue; fi
  # The source hard-codes PREFETCHT2; its labels say "T2" for the window whatever the hint. Its
  # rows are memset to 1 (2.4e-38 per float), whose products with the query are subnormal: Intel
  # cores take a microcode assist per such FMA (the EMR host's K loops read 3.3 GB/s), so the rows
  # are filled with 0x3c bytes (0.0115 per float) instead.
  sed "s/_MM_HINT_T2/_MM_HINT_$hint/g; s/T2 pf/window/g; s/V only T2/V only window/;
       s/memset(buf, 1, total)/memset(buf, 0x3c, total)/" "$src" > "$out/kv_order_$hint.cc"
  grep -q "memset(buf, 0x3c, total)" "$out/kv_order_$hint.cc"
  g++ -O3 -march=x86-64-v4 "$out/kv_order_$hint.cc" -o "$out/kv_order_$hint"
done
export KVBENCH_MODELS_DIR=${KVBENCH_MODELS_DIR:-configs/models}
for ((i = 1; i <= rounds; i++)); do
  echo "# round $i $(date -u +%H:%M:%S)"
  "$kvbench" ceilings --threads 1 --pin pus:1 $args | grep -E "ceiling_read +DRAM"
  for hint in T0 T2; do taskset -c 1 "$out/kv_order_$hint" | sed "s/^/$hint /"; done
  "$kvbench" run $args --model qwen3-0.6b --context 4682 --dtype fp32 --threads 1 --benchmarks decode_step \
    --repetitions 5 --min-time 0.1 --ceilings none --pin pus:1 --out "$out/decode-r$i.csv" > /dev/null 2>&1
  awk -F, 'NR == 1 { for (c = 1; c <= NF; ++c) col[$c] = c }
           NR > 1 && $col["aggregate"] == "median" { printf "kvbench decode_step fp32 1T %.1f GB/s\n", $col["gbps"] }' "$out/decode-r$i.csv"
done
rm -f "$out"/kv_order_T0 "$out"/kv_order_T2 "$out"/kv_order_T*.cc
