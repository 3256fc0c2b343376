#!/bin/bash
# `kvbench run ARGS` for each name in NAMES, ROUNDS rounds; round r starts with the r-th name
# (rotating order), each run to its own CSV (<name>_<round>.csv); summary by ab_summary.py (times
# over the first name's, round by round). A name is a carried binary (.carry/bin/kv_<name>), or,
# with BIN set, a --sw-prefetch hint for .carry/bin/kv_$BIN.
# (Call 1 ran this with BINS for NAMES; call 2 ran the same loop as ab_hints.sh, with HINTS.)
tar xJf .carry/pack.tar.xz -C .carry
export LD_LIBRARY_PATH=$PWD/.carry/lib KVBENCH_MODELS_DIR=$PWD/configs/models
out="$OUT/ab"; mkdir -p "$out"
read -r -a names <<< "$NAMES"
n=${#names[@]}
end=$((SECONDS + ${BUDGET:-400}))
for round in $(seq 1 "${ROUNDS:-6}"); do
  for i in $(seq 0 $((n - 1))); do
    name=${names[$(( (i + round - 1) % n ))]}
    [ $SECONDS -ge $end ] && break 2
    if [ -n "${BIN:-}" ]; then cmd=(.carry/bin/kv_$BIN run $ARGS --sw-prefetch "$name"); else cmd=(.carry/bin/kv_$name run $ARGS); fi
    timeout $((end - SECONDS)) "${cmd[@]}" --ceilings none -o "$out/${name}_$round.csv" > /dev/null 2> "$out/${name}_$round.err" || echo "$name round $round: rc $?"
  done
done
python3 results/xeon-emr-16c-kvm/session-2026-11-27h/ab_summary.py "$out" "${names[@]}" | tee "$out/summary.txt"
tar cJf "$OUT/ab.tar.xz" -C "$OUT" ab && rm -rf "$out"
