#!/bin/bash
# loops.sh OUTFILE [ROUNDS]: the AVX2 bare loops of this folder on PU 1, ROUNDS rounds (default 3)
# alternating the forms, next to kvbench's DRAM read ceiling and decode_step fp32 (Qwen3-0.6B,
# 4682 positions: 1 GiB, the targets' DRAM row) at 1 thread. Run from the repository root with
# build/kvbench built; nothing else should run on the machine.
set -euo pipefail
out=${1:?usage: loops.sh OUTFILE [ROUNDS]}
rounds=${2:-3}
here=$(dirname "$0")
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
g++ -O2 -mavx2 -mfma "$here/fp32_loop.cc" -o "$tmp/fp32_loop"
g++ -O2 -mavx2 -mfma "$here/loads_and_fmas.cc" -o "$tmp/loads_and_fmas"
export KVBENCH_MODELS_DIR=${KVBENCH_MODELS_DIR:-configs/models}
{
  echo "# $(date -u +%FT%TZ) $(git rev-parse --short HEAD) $(grep -m1 'model name' /proc/cpuinfo)"
  for ((i = 1; i <= rounds; i++)); do
    echo "# round $i"
    build/kvbench ceilings --threads 1 --pin pus:1 2>/dev/null | grep -E "ceiling_read +DRAM|ceiling_fma"
    for x in 0 4; do echo -n "loads_and_fmas X=$x: "; taskset -c 1 "$tmp/loads_and_fmas" "$x" 0; done
    echo -n "prefetch only, T0 4 KB ahead (dropped if above the ceiling): "; taskset -c 1 "$tmp/loads_and_fmas" 0 1 4096 0
    echo -n "fp32 loop from L1/L2 (HM=1, 512 positions): "; N=512 H=10000 HM=1 taskset -c 1 "$tmp/fp32_loop" 16 4
    echo -n "fp32 loop, no window: "; taskset -c 1 "$tmp/fp32_loop" 16 4
    echo -n "fp32 loop, PREFETCHT0 4 KB ahead: "; taskset -c 1 "$tmp/fp32_loop" 16 4 0 4096
    echo -n "fp32 loop, PREFETCHT0 1 KB ahead: "; taskset -c 1 "$tmp/fp32_loop" 16 4 0 1024
    echo -n "fp32 loop, next tile touched by loads: "; taskset -c 1 "$tmp/fp32_loop" 16 4 1
    echo -n "fp32 loop, one V sweep (accumulators in L1): "; taskset -c 1 "$tmp/fp32_loop" 16 16
    build/kvbench run --model qwen3-0.6b --context 4682 --dtype fp32 --threads 1 --pin pus:1 \
      --benchmarks decode_step --repetitions 3 --min-time 0.1 --ceilings none --out "$tmp/d$i.csv" > /dev/null 2>&1
    awk -F, 'NR == 1 { for (c = 1; c <= NF; ++c) col[$c] = c }
         NR > 1 && $col["aggregate"] == "median" { printf "kvbench decode_step fp32 (%s): %.1f GB/s\n", $col["isa"], $col["gbps"] }' "$tmp/d$i.csv"
  done
} | tee "$out"
