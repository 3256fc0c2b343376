#!/bin/bash
# dtype-rate.sh OUTDIR [ROUNDS]: ROUNDS rounds (default 3), each at every thread count of THREADS
# (default 1; on PUs 1.. for one thread, else 0..T-1) of (1) kvbench's DRAM read ceiling,
# (2) dtype_rate.cc (the decode kernel's access shape per dtype as a bare loop, see its header)
# and (3) kvbench decode_step of Qwen3-0.6B per dtype at the targets' DRAM contexts (1 GiB each),
# --ceilings none. Run from the repository root with build/kvbench built. KVBENCH names another
# binary, PREBUILT=DIR takes dtype_rate from DIR (a host without a compiler), KVBENCH_ARGS go to
# both kvbench commands (e.g. --llc 64MiB). Writes OUTDIR/rate.txt and the decode CSVs.
set -euo pipefail
out=${1:?usage: dtype-rate.sh OUTDIR [ROUNDS]}
rounds=${2:-3}
mkdir -p "$out"
here=$(dirname "$0")
kvbench=${KVBENCH:-build/kvbench}
args=${KVBENCH_ARGS:-}
if [ -n "${PREBUILT:-}" ]; then
  cp "$PREBUILT/dtype_rate" "$out/"
else
  # -Wno-maybe-uninitialized: GCC 12 warns inside its own _mm512_cvtepi8_epi32.
  g++ -O3 -march=x86-64-v4 -pthread -Wno-maybe-uninitialized "$here/dtype_rate.cc" -o "$out/dtype_rate"
fi
export KVBENCH_MODELS_DIR=${KVBENCH_MODELS_DIR:-configs/models}
log="$out/rate.txt"
for ((i = 1; i <= rounds; i++)); do
  for t in ${THREADS:-1}; do
    if [ "$t" = 1 ]; then pin=pus:1; pus=1; else pin=compact; pus=$(seq -s, 0 $((t - 1))); fi
    echo "# round $i, $t threads, $(date -u +%H:%M:%S)" | tee -a "$log"
    "$kvbench" ceilings --threads "$t" --pin "$pin" $args | grep -E "ceiling_read +DRAM" | tee -a "$log"
    THREADS=$t PUS=$pus "$out/dtype_rate" | tee -a "$log"
    for dc in fp32:4682 fp16:9363 bf16:9363 int8:18158; do
      csv="$out/decode-r$i-${t}t-${dc%:*}.csv"
      "$kvbench" run $args --model qwen3-0.6b --context "${dc#*:}" --dtype "${dc%:*}" --threads "$t" --pin "$pin" \
        --benchmarks decode_step --repetitions 3 --min-time 0.1 --ceilings none --out "$csv" > /dev/null 2>&1
      awk -F, -v t="$t" 'NR == 1 { for (c = 1; c <= NF; ++c) col[$c] = c }
           NR > 1 && $col["aggregate"] == "median" { printf "r kvbench %sT %s decode_step %.1f GB/s\n", t, $col["dtype"], $col["gbps"] }' \
        "$csv" | tee -a "$log"
    done
  done
done
rm -f "$out/dtype_rate"
