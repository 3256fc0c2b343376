#!/bin/bash
# A/B of a second prefetch window (scratch build kv_far: --sw-prefetch t0far adds a PREFETCHT2
# window KVB_FAR_BYTES beyond the 4 KB PREFETCHT0 one; far.patch). NAMES are arms: a hint, or
# hint@bytes for t0far with that distance. ROUNDS rounds, rotating order, `kvbench run ARGS`
# per arm to <arm>_<round>.csv; ../session-2026-11-27h/ab_summary.py gives times over the first.
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
    hint=${name%@*}; far=4096; [[ $name == *@* ]] && far=${name#*@}
    KVB_FAR_BYTES=$far timeout $((end - SECONDS)) .carry/kv_far run $ARGS --sw-prefetch "$hint" \
      --ceilings none -o "$out/${name}_$round.csv" > /dev/null 2> "$out/${name}_$round.err" \
      || echo "$name round $round: rc $?"
  done
done
python3 results/xeon-emr-16c-kvm/session-2026-11-27h/ab_summary.py "$out" "${names[@]}" | tee "$out/summary.txt"
tar cJf "$OUT/ab.tar.xz" -C "$OUT" ab && rm -rf "$out"
