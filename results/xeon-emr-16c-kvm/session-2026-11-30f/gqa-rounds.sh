#!/bin/bash
# Session 2026-11-30f on the lent EMR host: the GQA target's fp32 line at 16 threads read 1.09x
# ("unsettled": its G = 8 and G = 1 rows ran against DRAM brackets of 181 and 157 GB/s) in the
# set of main 03ede85. ROUNDS runs of the gqa step's fp32 rows alone (attention, Qwen3-0.6B
# with 8 and 64 query heads over 8 KV heads, 16384 positions, 16 threads, every row bracketed),
# the two group sizes in alternating order (8,64 in odd rounds, 64,8 in even ones), so each
# round gives one G = 8 over G = 1 ratio from rows a minute apart. Run from the repository root
# with .carry/pack.tar.xz (bin/kvbench = main e07fc08); the CSVs land in $OUT; gqa_rounds.py
# summarises them.
[ -f .carry/pack.tar.xz ] && tar xJf .carry/pack.tar.xz -C .carry
export LD_LIBRARY_PATH=$PWD/.carry/lib KVBENCH_MODELS_DIR=$PWD/configs/models
bin=$PWD/.carry/bin
cd "$OUT" || exit 1
start=$(date +%s)
for r in $(seq 1 "${ROUNDS:-10}"); do
  if (( r % 2 )); then qh=8,64; else qh=64,8; fi
  "$bin/kvbench" run --llc 64MiB --model qwen3-0.6b --q-heads $qh --kv-heads 8 --context 16384 \
    --threads "${THREADS:-16}" --dtype fp32 --benchmarks attention --repetitions 5 --min-time 0.1 \
    --ceiling-bracket --out gqa-r$r.csv > gqa-r$r.log 2>&1
  echo "$(date -u +%H:%M:%S) round $r ($qh) rc=$?"
  (( $(date +%s) - start > ${BUDGET:-400} )) && break
done
