#!/bin/bash
# hint.sh OUT ROUNDS: EMR 1 thread, PU 1: DRAM ceiling, the dtype loop with a T0 and a T2 window,
# kvbench decode_step fp16/bf16/int8 with --sw-prefetch t0 and t2 (order flipped each round).
out=$1; mkdir -p $out
export LD_LIBRARY_PATH=$PWD/.carry/lib KVBENCH_MODELS_DIR=$PWD/configs/models
kv=.carry/bin/kv_new
for ((i = 1; i <= $2; i++)); do
  if ((i % 2)); then hs="t0 t2"; else hs="t2 t0"; fi
  echo "# round $i $(date -u +%T)"
  $kv ceilings --threads 1 --pin pus:1 --llc 64MiB | grep -E "ceiling_read +DRAM"
  for h in $hs; do
    H=$(echo $h | tr t T); PUS=1 .carry/bin/dtype_rate_$H | grep -v "long tile\|no window" | sed "s/^/$h /"
    for dc in fp16:9363 bf16:9363 int8:18158; do
      $kv run --llc 64MiB --model qwen3-0.6b --context ${dc#*:} --dtype ${dc%:*} --threads 1 --pin pus:1 --sw-prefetch $h \
        --benchmarks decode_step --repetitions 3 --min-time 0.1 --ceilings none --out $out/r${i}_${h}_${dc%:*}.csv > /dev/null 2>&1
      awk -F, -v h=$h 'NR == 1 { for (c = 1; c <= NF; ++c) col[$c] = c }
           NR > 1 && $col["aggregate"] == "median" { printf "%s kvbench 1T %s decode_step %.1f GB/s\n", h, $col["dtype"], $col["gbps"] }' $out/r${i}_${h}_${dc%:*}.csv
    done
  done
done
