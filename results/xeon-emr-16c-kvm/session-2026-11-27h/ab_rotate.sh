#!/bin/bash
# `kvbench run ARGS` for each arm in NAMES, ROUNDS rounds; round r starts with the r-th arm
# (rotating order), each run to its own CSV (<arm>_<round>.csv); summary by ab_summary.py (times
# over the first arm's, round by round). An arm is a binary $KV_DIR/kv_<arm> (KV_DIR defaults to
# .carry/bin), or, with BIN set, a --sw-prefetch hint for $KV_DIR/kv_$BIN; an arm hint@BYTES
# also sets KVB_FAR_BYTES (the far window of ../session-2026-11-27j/far.patch). Where
# .carry/pack.tar.xz is (the device) it unpacks the carried build and leaves one archive,
# $OUT/ab.tar.xz; elsewhere the CSVs go to the folder $OUT. The loop stops starting runs after
# BUDGET seconds (default 400).
# Call 1 ran this with binaries for NAMES; call 2 ran the same loop as ab_hints.sh, with HINTS.
# session-2026-11-27j ran it as ab_far.sh, and results/epyc-zen4-2c-kvm/kernel-rate/ as
# ab_local.sh and ab_bins.sh (in git history at a51a562), since merged here.
here=$(dirname "$0")
out=$OUT
if [ -f .carry/pack.tar.xz ]; then
  tar xJf .carry/pack.tar.xz -C .carry
  export LD_LIBRARY_PATH=$PWD/.carry/lib KVBENCH_MODELS_DIR=$PWD/configs/models
  out="$OUT/ab"
fi
kv_dir=${KV_DIR:-.carry/bin}
mkdir -p "$out"
read -r -a names <<< "$NAMES"
n=${#names[@]}
end=$((SECONDS + ${BUDGET:-400}))
for round in $(seq 1 "${ROUNDS:-6}"); do
  for i in $(seq 0 $((n - 1))); do
    name=${names[$(( (i + round - 1) % n ))]}
    [ $SECONDS -ge $end ] && break 2
    arm=${name%@*} far=4096
    [[ $name == *@* ]] && far=${name#*@}
    if [ -n "${BIN:-}" ]; then cmd=("$kv_dir/kv_$BIN" run $ARGS --sw-prefetch "$arm"); else cmd=("$kv_dir/kv_$arm" run $ARGS); fi
    KVB_FAR_BYTES=$far timeout $((end - SECONDS)) "${cmd[@]}" --ceilings none -o "$out/${name}_$round.csv" \
      > /dev/null 2> "$out/${name}_$round.err" || echo "$name round $round: rc $?"
  done
done
python3 "$here/ab_summary.py" "$out" "${names[@]}" | tee "$out/summary.txt"
if [ -f .carry/pack.tar.xz ]; then tar cJf "$OUT/ab.tar.xz" -C "$OUT" ab && rm -rf "$out"; fi
