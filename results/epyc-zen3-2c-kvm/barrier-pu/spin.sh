#!/bin/bash
# Does a row name the worker the others waited for? Two workers (PUs 0 and 1), with a busy loop
# sharing PU 1, then PU 0, then neither; each arm with two binaries alternating:
#   new     - the commit under test: a waiter's wait ends at the last other worker's arrival
#   exitdef - the same with main's earlier barrier_wait_pct (arrival to leaving the barrier)
# Usage: spin.sh OUTDIR ROUNDS   (NEW=..., EXITDEF=... name the binaries)
set -u
out=$1; rounds=${2:-2}
mkdir -p "$out"
args="--model qwen3-0.6b --context 4096 --dtype fp32 --threads 2 --pin compact --benchmarks decode_step,attention
      --repetitions 3 --min-time 0.2 --ceilings none --llc 32MiB"
for round in $(seq 1 "$rounds"); do
  for arm in none pu1 pu0; do
    for bin in new exitdef; do
      exe=$NEW; [ "$bin" = exitdef ] && exe=$EXITDEF
      spinner=""
      case $arm in
        pu1) taskset -c 1 sh -c 'while :; do :; done' & spinner=$! ;;
        pu0) taskset -c 0 sh -c 'while :; do :; done' & spinner=$! ;;
      esac
      $exe run $args --out "$out/$bin-$arm-$round.csv" > "$out/$bin-$arm-$round.log" 2>&1
      echo "$(date -u +%H:%M:%S) $bin $arm $round rc=$?"
      [ -n "$spinner" ] && kill "$spinner"
    done
  done
done
