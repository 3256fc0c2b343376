#!/bin/bash
# ab_local.sh DIR: the A/B of ../../xeon-emr-16c-kvm/session-2026-11-27j/ab_far.sh on this machine.
# NAMES: arms hint[@farbytes] of /tmp/kv_far (a scratch build with far.patch), ROUNDS rotating rounds.
out=$1; shift; mkdir -p $out
read -r -a names <<< "$NAMES"; n=${#names[@]}
for round in $(seq 1 "${ROUNDS:-6}"); do
  for i in $(seq 0 $((n - 1))); do
    name=${names[$(( (i + round - 1) % n ))]}
    hint=${name%@*}; far=4096; [[ $name == *@* ]] && far=${name#*@}
    KVB_FAR_BYTES=$far /tmp/kv_far run $ARGS --sw-prefetch "$hint" --ceilings none -o "$out/${name}_$round.csv" > /dev/null 2> "$out/${name}_$round.err" || echo "$name $round rc $?"
  done
done
python3 /work/main/results/xeon-emr-16c-kvm/session-2026-11-27h/ab_summary.py "$out" "${names[@]}" | tee "$out/summary.txt"
