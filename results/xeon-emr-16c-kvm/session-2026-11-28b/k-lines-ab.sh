#!/bin/bash
# The K sweep's inline window on the EMR host: one scratch build of f4a20db with
# ../../epyc-zen4-2c-kvm/kernel-rate/k-lines-switch.patch (carried as .carry/kb_kl), kernel_bench
# pinned to PU 1, KVB_KLINES=0/1 alternating (order flipped per round) for ROUNDS rounds or until
# BUDGET seconds. Output: $OUT/k-lines-ab.txt (the ab_ratios.py format) in one archive.
tar xJf .carry/pack.tar.xz -C .carry
export LD_LIBRARY_PATH=$PWD/.carry/lib
filt='floor/fp32/G:(1|2)/ctx:512|fast/(fp32|fp16|int8)/ctx:16384'
out=$OUT/k-lines-ab.txt
end=$((SECONDS + ${BUDGET:-300}))
for ((i = 0; i < ${ROUNDS:-8} && SECONDS < end; i++)); do
  if ((i % 2)); then arms="1 0"; else arms="0 1"; fi
  for a in $arms; do
    line="$i kl$a"
    while IFS=, read -r name iters real rest; do line+=" $name $real"; done < <(
      KVB_KLINES=$a taskset -c 1 .carry/kb_kl --benchmark_filter="$filt" --benchmark_min_time=0.5 \
        --benchmark_format=csv 2>/dev/null | grep '^"')
    echo "$line" >> "$out"
  done
done
lscpu | grep -m2 "Model name\|^CPU(s)" >> "$OUT/k-lines-ab-machine.txt"
tar cJf "$OUT/k-lines-ab.tar.xz" -C "$OUT" k-lines-ab.txt k-lines-ab-machine.txt && rm "$OUT"/k-lines-ab*.txt
