#!/bin/bash
# Session 2026-11-30 on the lent EMR host: does a build's code layout alone move kvbench's rows,
# and does -falign-functions=64 (CMakeLists.txt, KVBENCH_LAYOUT_FLAGS) take that away?
# Four builds of one source (.carry/bin/kvbench.<arm>):
#   x0  main before the flag            y0  x0 plus a dead 21-byte function linked first
#   x1  main with -falign-functions=64  y1  x1 plus the same dead function
# The dead function shifts every later function by 48 bytes; no timed code differs. Each pair
# goes through `kvbench ab` (alternating rounds, the order swapped every round, one --llc):
#   PAIRS=x0:y0 ROUNDS=8 BUDGET=400 bash ab.sh    (then PAIRS=x1:y1: Qwen3-0.6B, L2/L3/DRAM, 1 and 16 threads)
#   TAG=-core PAIRS="x0:y0 x1:y1" ROUNDS=16 BUDGET=150 THREADS=1 CONTEXTS=4,17,219,851 bash ab.sh
#     (the core-bound rows only: the L2 and L3 contexts of fp32 and int8, at 1 thread)
# Run from the repository root; each pair's folder comes back as one archive.
[ -f .carry/pack.tar.xz ] && tar xJf .carry/pack.tar.xz -C .carry
export LD_LIBRARY_PATH=$PWD/.carry/lib KVBENCH_MODELS_DIR=$PWD/configs/models
bin=$PWD/.carry/bin
cd "$OUT" || exit 1
for pair in ${PAIRS:-x0:y0 x1:y1}; do
  base=${pair%%:*} new=${pair##*:} name=ab-${pair/:/-}${TAG}
  "$bin/kvbench.$new" ab --dir "$name" --base "$bin/kvbench.$base" --new "$bin/kvbench.$new" \
    --rounds "${ROUNDS:-8}" --budget "${BUDGET:-240}" -- \
    --model qwen3-0.6b --context "${CONTEXTS:-auto}" --dtype "${DTYPES:-fp32,int8}" --threads "${THREADS:-1,16}" \
    --benchmarks "${BENCHMARKS:-decode_step,attention}" --llc "${LLC:-64MiB}" --ceilings none \
    --repetitions 3 --min-time 0.05 > "$name.txt" 2>&1
  echo "$name rc=$?"
  tail -24 "$name.txt"
  lscpu > "$name/lscpu.txt"
  tar cJf "$name.tar.xz" "$name" "$name.txt" && rm -rf "$name"
done
