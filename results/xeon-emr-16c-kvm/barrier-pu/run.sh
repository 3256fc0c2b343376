#!/bin/bash
# Session 2026-11-30b on the lent EMR host (16 vCPUs): the stamped barrier that names the worker
# the others waited for (barrier_slowest_pu). Two parts, one device call:
#   1. cost: `kvbench ab` of main before it (.carry/bin/kvbench.main) against it (kvbench.new),
#      Qwen3-0.6B, L2/L3/DRAM contexts, fp32 and int8, 1 and 16 threads (ROUNDS, BUDGET);
#   2. naming: kvbench.new at 16 threads, fp32 and int8 at their L3 contexts, with a busy loop
#      sharing PU $SPIN (and one with none), so the rows should name PU $SPIN.
# First call: `bash run.sh`. Second: the barrier-bound rows alone, more rounds:
#   TAG=-16t CONTEXTS=4,17,219,851 THREADS=16 ROUNDS=20 BUDGET=240 SPINS=0 bash run.sh
# Run from the repository root; everything lands in $OUT.
[ -f .carry/pack.tar.xz ] && tar xJf .carry/pack.tar.xz -C .carry
export LD_LIBRARY_PATH=$PWD/.carry/lib KVBENCH_MODELS_DIR=$PWD/configs/models
bin=$PWD/.carry/bin
cd "$OUT" || exit 1
lscpu > lscpu.txt
cat /proc/interrupts > interrupts-before.txt
if [ "${AB:-1}" = 1 ]; then
  name=ab-main-new${TAG:-}
  "$bin/kvbench.new" ab --dir "$name" --base "$bin/kvbench.main" --new "$bin/kvbench.new" \
    --rounds "${ROUNDS:-6}" --budget "${BUDGET:-300}" -- \
    --model qwen3-0.6b --context "${CONTEXTS:-auto}" --dtype fp32,int8 --threads "${THREADS:-1,16}" \
    --benchmarks decode_step,attention --llc "${LLC:-64MiB}" --ceilings none \
    --repetitions 3 --min-time 0.05 > "$name.txt" 2>&1
  echo "ab rc=$?"; tail -30 "$name.txt"
fi
mkdir -p spin
[ "${SPINS:-1}" = 1 ] && for arm in none "pu${SPIN:-5}" none2 "pu${SPIN2:-12}"; do
  spinner=""
  case $arm in pu*) taskset -c "${arm#pu}" sh -c 'while :; do :; done' & spinner=$! ;; esac
  "$bin/kvbench.new" run --model qwen3-0.6b --context 219,851 --dtype fp32,int8 --threads 16 --pin compact \
    --benchmarks decode_step,attention --llc "${LLC:-64MiB}" --ceilings none --repetitions 3 --min-time 0.1 \
    --out "spin/$arm.csv" > "spin/$arm.log" 2>&1
  echo "$(date -u +%H:%M:%S) spin $arm rc=$?"
  [ -n "$spinner" ] && kill "$spinner"
  grep 'at barriers' "spin/$arm.log"
done
cat /proc/interrupts > interrupts-after.txt
tar cJf "barrier-pu${TAG:-}.tar.xz" ab-main-new* spin lscpu.txt interrupts-*.txt && rm -rf ab-main-new* spin
