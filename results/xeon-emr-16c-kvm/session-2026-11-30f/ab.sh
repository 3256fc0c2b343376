#!/bin/bash
# Session 2026-11-30f on the lent EMR host: what five days of kernel work did here. `kvbench ab`
# of main dbd082a's kvbench (2026-11-25, the build of the 2-vCPU EMR guest's previous set)
# against main e07fc08's: Qwen3-0.6B decode_step at 9363 positions (0.5-2 GiB of cache, 8-32x
# the 64 MiB LLC) and 292 (17-64 MiB: within it), every dtype, 1 and 16 threads, alternating
# rounds until BUDGET seconds. dbd082a has no --llc (it takes hwloc's LLC), so the new arm gets
# --llc hwloc: both arms label the levels alike. Run from the repository root with
# .carry/pack.tar.xz (bin/kvbench.base = dbd082a, bin/kvbench = e07fc08); everything lands in $OUT.
# THREADS: the thread counts (default 1,16; the second call ran 4,8 with DIR=ab-4-8).
[ -f .carry/pack.tar.xz ] && tar xJf .carry/pack.tar.xz -C .carry
export LD_LIBRARY_PATH=$PWD/.carry/lib KVBENCH_MODELS_DIR=$PWD/configs/models
bin=$PWD/.carry/bin
cd "$OUT" || exit 1
lscpu > lscpu.txt
"$bin/kvbench" ab --dir "${DIR:-ab}" --base "$bin/kvbench.base" --new "$bin/kvbench" --new-args '--llc hwloc' \
  --rounds "${ROUNDS:-12}" --budget "${BUDGET:-480}" -- \
  --model qwen3-0.6b --context 292,9363 --dtype fp32,fp16,bf16,int8 --threads "${THREADS:-1,16}" \
  --benchmarks decode_step --ceilings none --repetitions 3 --min-time 0.05 \
  > "${DIR:-ab}.txt" 2>&1
echo "$(date -u +%H:%M:%S) ab rc=$?"; d=${DIR:-ab}; grep -s -E 'rounds in|^decode' "$d.txt"
tar cJf "$d.tar.xz" "$d" "$d.txt" lscpu.txt && rm -rf "$d"
