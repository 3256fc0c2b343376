#!/bin/bash
# Session 2026-11-29b on the lent EMR host: main's kvbench (.carry/bin/kvbench.base) against a
# build of the same source with one change (.carry/bin/kvbench.$ARM), through `kvbench ab`
# (alternating rounds, the order swapped every round, one --llc for all, compare in rounds mode).
# decode_step carries the change; attention (the same code in both binaries) is the control that
# shows what the binaries' code layout and the host's drift alone make of the rows.
#   ARM=split ROUNDS=8 BUDGET=420 bash ab.sh   (each layer's token appended by min(H, T) workers)
#   ARM=idle ROUNDS=8 BUDGET=420 BENCHMARKS=decode_step,attention,append THREADS=4,8,16 bash ab.sh
#     (each worker prefetches its next-layer rows while it waits at a layer's barrier; append,
#     which has no barrier, is the control)
# Run from the repository root; the folder comes back as one archive.
[ -f .carry/pack.tar.xz ] && tar xJf .carry/pack.tar.xz -C .carry
export LD_LIBRARY_PATH=$PWD/.carry/lib KVBENCH_MODELS_DIR=$PWD/configs/models
cd "$OUT" || exit 1
"$OLDPWD/.carry/bin/kvbench.$ARM" ab --dir "ab-$ARM" --base "$OLDPWD/.carry/bin/kvbench.base" \
  --new "$OLDPWD/.carry/bin/kvbench.$ARM" --rounds "${ROUNDS:-8}" --budget "${BUDGET:-420}" -- \
  --model qwen3-0.6b --context auto --dtype "${DTYPES:-fp32,int8}" --threads "${THREADS:-4,16}" \
  --benchmarks "${BENCHMARKS:-decode_step,attention}" --llc 64MiB --ceilings none --repetitions 3 --min-time 0.05 \
  > "ab-$ARM.txt" 2>&1
echo "ab rc=$?"
tail -30 "ab-$ARM.txt"
lscpu > "ab-$ARM/lscpu.txt"
tar cJf "ab-$ARM.tar.xz" "ab-$ARM" "ab-$ARM.txt" && rm -rf "ab-$ARM"
