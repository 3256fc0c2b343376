#!/bin/bash
# A device-call A/B: kvbench ab on the lent machine, from the carried pack (.carry/pack.tar.xz,
# unpacked to /tmp/pk: bin/kvbench, any other binaries the arms name, and the shared libraries
# in lib/), once per thread count of THREADS (default "1 16"; 1 thread pinned to PU 1, more
# compact). Each thread count's rounds go to NAME/ab-<T>t/ with the ab's output in
# NAME/ab-<T>t.out; lscpu.txt has the machine, call.sh the calling script. The folder comes
# back as $OUT/NAME.tar.xz (its CSVs are too many files for the call to return one by one),
# packed again after each thread count.
#
#   results/device-ab.sh NAME CALLER -- <kvbench ab options> -- <kvbench run options>
#
# ROUNDS (default 6) and BUDGET (seconds per thread count, default 150) go to kvbench ab.
set -u
name=${1:?usage: device-ab.sh NAME CALLER -- AB OPTIONS -- RUN OPTIONS}
caller=${2:?the calling script, kept with the rounds}
shift 2
[ "${1:-}" = "--" ] && shift
ab_args=()
while [ $# -gt 0 ] && [ "$1" != "--" ]; do ab_args+=("$1"); shift; done
[ "${1:-}" = "--" ] && shift
. "$(dirname "$0")/device-env.sh"
dir=$OUT/$name
mkdir -p "$dir"
lscpu > "$dir/lscpu.txt"
cp "$caller" "$dir/call.sh"
for t in ${THREADS:-1 16}; do
  if [ "$t" = 1 ]; then pin=pus:1; else pin=compact; fi
  /tmp/pk/bin/kvbench ab --dir "$dir/ab-${t}t" --rounds "${ROUNDS:-6}" --budget "${BUDGET:-150}" "${ab_args[@]}" -- \
    "$@" --threads "$t" --pin "$pin" > "$dir/ab-${t}t.out" 2>&1
  echo "ab ${t}T rc=$? $(date -u +%H:%M:%S)"
  # Packed after every thread count, so a call stopped at its time limit still returns the
  # thread counts it finished.
  tar cJf "$OUT/$name.tar.xz.part" -C "$OUT" "$name" && mv "$OUT/$name.tar.xz.part" "$OUT/$name.tar.xz"
done
rm -rf "$dir"
