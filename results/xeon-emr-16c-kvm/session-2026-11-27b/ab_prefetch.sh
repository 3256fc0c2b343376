#!/bin/bash
# A/B of software-prefetch variants (scratch builds of kernels/attention.cc's KVB_PF_* macros,
# carried as .carry/bin/kv_*): ROUNDS interleaved rounds of every binary over `kvbench run ARGS`,
# each run to its own CSV; the CSVs come back as one archive, with abkv_summary.py's table.
tar xJf .carry/pack.tar.xz -C .carry
export LD_LIBRARY_PATH=$PWD/.carry/lib KVBENCH_MODELS_DIR=$PWD/configs/models
here=$PWD; out="$OUT/ab"; mkdir -p "$out"
end=$((SECONDS + ${BUDGET:-540}))
for round in $(seq 1 "${ROUNDS:-3}"); do
  for b in $BINS; do
    [ $SECONDS -ge $end ] && break 2
    timeout $((end - SECONDS)) "$here/.carry/bin/kv_$b" run $ARGS --ceilings none \
      -o "$out/${b}_$round.csv" > /dev/null 2> "$out/${b}_$round.err" || echo "kv_$b round $round: rc $?"
  done
done
python3 "$here/results/xeon-emr-16c-kvm/session-2026-11-27b/abkv_summary.py" "$out" $BINS | tee "$out/summary.txt"
tar cJf "$OUT/ab.tar.xz" -C "$OUT" ab && rm -rf "$out"
