#!/bin/bash
# One carried binary (.carry/bin/kv_$BIN) over `kvbench run ARGS --sw-prefetch H` for each hint H
# in HINTS, ROUNDS rounds; round r starts with the r-th hint (rotating order), each run to its own
# CSV (<hint>_<round>.csv); summary by ab_summary.py (times over the first hint's, round by round).
tar xJf .carry/pack.tar.xz -C .carry
export LD_LIBRARY_PATH=$PWD/.carry/lib KVBENCH_MODELS_DIR=$PWD/configs/models
out="$OUT/ab"; mkdir -p "$out"
read -r -a hints <<< "$HINTS"
n=${#hints[@]}
end=$((SECONDS + ${BUDGET:-400}))
for round in $(seq 1 "${ROUNDS:-6}"); do
  for i in $(seq 0 $((n - 1))); do
    h=${hints[$(( (i + round - 1) % n ))]}
    [ $SECONDS -ge $end ] && break 2
    timeout $((end - SECONDS)) .carry/bin/kv_$BIN run $ARGS --sw-prefetch $h --ceilings none -o "$out/${h}_$round.csv" > /dev/null 2> "$out/${h}_$round.err" || echo "$h round $round: rc $?"
  done
done
python3 results/xeon-emr-16c-kvm/session-2026-11-27h/ab_summary.py "$out" "${hints[@]}" | tee "$out/summary.txt"
tar cJf "$OUT/ab.tar.xz" -C "$OUT" ab && rm -rf "$out"
