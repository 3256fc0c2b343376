#!/bin/bash
# Carried binaries (.carry/bin/kv_<name> for each name in BINS) over `kvbench run ARGS`, ROUNDS
# rounds; round r starts with the r-th binary (rotating order), each run to its own CSV; summary
# by ab_summary.py (times over the first binary's, round by round).
tar xJf .carry/pack.tar.xz -C .carry
export LD_LIBRARY_PATH=$PWD/.carry/lib KVBENCH_MODELS_DIR=$PWD/configs/models
out="$OUT/ab"; mkdir -p "$out"
read -r -a bins <<< "$BINS"
n=${#bins[@]}
end=$((SECONDS + ${BUDGET:-400}))
for round in $(seq 1 "${ROUNDS:-6}"); do
  for i in $(seq 0 $((n - 1))); do
    b=${bins[$(( (i + round - 1) % n ))]}
    [ $SECONDS -ge $end ] && break 2
    timeout $((end - SECONDS)) .carry/bin/kv_$b run $ARGS --ceilings none -o "$out/${b}_$round.csv" > /dev/null 2> "$out/${b}_$round.err" || echo "kv_$b round $round: rc $?"
  done
done
python3 results/xeon-emr-16c-kvm/session-2026-11-27h/ab_summary.py "$out" "${bins[@]}" | tee "$out/summary.txt"
tar cJf "$OUT/ab.tar.xz" -C "$OUT" ab && rm -rf "$out"
