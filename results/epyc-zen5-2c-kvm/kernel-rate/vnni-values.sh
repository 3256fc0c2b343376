#!/bin/bash
# vnni-values.sh OUTFILE [ROUNDS]: the int8 bare loop (dtype_rate.cc) with its V side as the
# kernel's converts and FMAs against VPDPBUSD over byte-interleaved rows ("VNNI values": LIMBS 2
# or 3, the tile's largest weight reduced or, FIXED_MAX, taken as 1), its K side as VPDPBUSD
# against the query's limbs ("VNNI scores"), and both (three limbs, fixed max). ROUNDS rounds
# (default 3) at each thread count of THREADS (default 1): at 1 thread on PU 1 the whole loop and
# the V side alone from L2 (ITEMS=1, 512 KiB) and the whole loop from DRAM (1 GiB); at more
# threads (PUs 0..T-1) from DRAM only. Builds dtype_rate with -mavx512vnni into a temporary
# folder, or takes it from PREBUILT=DIR (a host without a compiler).
set -euo pipefail
out=${1:?usage: vnni-values.sh OUTFILE [ROUNDS]}
rounds=${2:-3}
here=$(dirname "$(readlink -f "$0")")
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
if [ -n "${PREBUILT:-}" ]; then
  cp "$PREBUILT/dtype_rate" "$tmp/"
else
  # -Wno-maybe-uninitialized: GCC 12 warns inside its own _mm512_cvtepi8_epi32.
  g++ -O3 -march=x86-64-v4 -mavx512vnni -pthread -Wno-maybe-uninitialized "$here/dtype_rate.cc" -o "$tmp/dtype_rate"
fi
run() {  # LABEL, then env assignments for one dtype_rate run of int8
  local label=$1
  shift
  env "$@" DTYPES=int8 "$tmp/dtype_rate" | sed "s/^/$label /"
}
for ((r = 1; r <= rounds; r++)); do
  for t in ${THREADS:-1}; do
    echo "# round $r, $t threads, $(date -u +%H:%M:%S)"
    if [ "$t" = 1 ]; then places="L2 L2-V-only DRAM"; pus=1; else places=DRAM; pus=$(seq -s, 0 $((t - 1))); fi
    for where in $places; do
      case $where in
        L2) set -- ITEMS=1 BYTES=524288 REPS=200 ;;
        L2-V-only) set -- ITEMS=1 BYTES=524288 REPS=200 SKIP_K=1 ;;
        DRAM) set -- REPS=3 ;;
      esac
      set -- "$@" THREADS="$t" PUS="$pus"
      run "$where ${t}T kernel" "$@" VARIANTS=kernel
      for limbs in 2 3; do
        run "$where ${t}T values:limbs$limbs:reduced-max" "$@" VARIANTS=values LIMBS=$limbs
        run "$where ${t}T values:limbs$limbs:fixed-max" "$@" VARIANTS=values LIMBS=$limbs FIXED_MAX=1
      done
      if [ "$where" != L2-V-only ]; then
        run "$where ${t}T scores" "$@" VARIANTS=VNNI
        run "$where ${t}T scores+values:limbs3:fixed-max" "$@" VARIANTS=both LIMBS=3 FIXED_MAX=1
      fi
    done
  done
done | tee "$out"
