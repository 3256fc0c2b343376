#!/bin/bash
# Two carried binaries (.carry/bin/kv_A, kv_B) over `kvbench run ARGS`, ROUNDS rounds whose order
# alternates (A B, B A, ...), each run to its own CSV; summary by abkv_summary.py of session-2026-11-27b.
tar xJf .carry/pack.tar.xz -C .carry
export LD_LIBRARY_PATH=$PWD/.carry/lib KVBENCH_MODELS_DIR=$PWD/configs/models
out="$OUT/ab"; mkdir -p "$out"
end=$((SECONDS + ${BUDGET:-400}))
for round in $(seq 1 "${ROUNDS:-6}"); do
  if [ $((round % 2)) -eq 1 ]; then order="$A $B"; else order="$B $A"; fi
  for b in $order; do
    [ $SECONDS -ge $end ] && break 2
    timeout $((end - SECONDS)) .carry/bin/kv_$b run $ARGS --ceilings none -o "$out/${b}_$round.csv" > /dev/null 2> "$out/${b}_$round.err" || echo "kv_$b round $round: rc $?"
  done
done
python3 results/xeon-emr-16c-kvm/session-2026-11-27b/abkv_summary.py "$out" $A $B | tee "$out/summary.txt"
tar cJf "$OUT/ab.tar.xz" -C "$OUT" ab && rm -rf "$out"
