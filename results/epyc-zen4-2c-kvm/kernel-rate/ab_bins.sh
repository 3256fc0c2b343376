#!/bin/bash
# ab_bins.sh DIR: arms are binaries /tmp/kv_<name> (NAMES), ROUNDS rotating rounds of `kvbench run ARGS`
out=$1; mkdir -p $out
read -r -a names <<< "$NAMES"; n=${#names[@]}
for round in $(seq 1 "${ROUNDS:-6}"); do
  for i in $(seq 0 $((n - 1))); do
    name=${names[$(( (i + round - 1) % n ))]}
    /tmp/kv_$name run $ARGS --ceilings none -o "$out/${name}_$round.csv" > /dev/null 2> "$out/${name}_$round.err" || echo "$name $round rc $?"
  done
done
python3 /work/main/results/xeon-emr-16c-kvm/session-2026-11-27h/ab_summary.py "$out" "${names[@]}" | tee "$out/summary.txt"
