#!/bin/bash
# A device-call study: kvbench runs back to back for a time budget, on the lent machine, from the
# carried pack (.carry/pack.tar.xz: bin/kvbench and the shared libraries it needs in lib/). Each
# run writes runs/<UTC time>.csv and .log; index.txt has one line per run (time, exit status,
# seconds into the call), started.txt the call's start and end, lscpu.txt the machine. The study
# folder, with the calling script, comes back as $OUT/NAME.tar.xz.
#
#   results/device-loop.sh NAME SECONDS CALLER -- <kvbench run options, without --out>
set -u
name=${1:?usage: device-loop.sh NAME SECONDS CALLER -- RUN OPTIONS}
budget=${2:?seconds}
caller=${3:?the calling script, kept with the runs}
shift 3
[ "${1:-}" = "--" ] && shift
. "$(dirname "$0")/device-env.sh"
dir=$OUT/$name
mkdir -p "$dir/runs"
date -u > "$dir/started.txt"
lscpu > "$dir/lscpu.txt"
end=$((SECONDS + budget))
while [ $SECONDS -lt $end ]; do
  ts=$(date -u +%Y%m%dT%H%M%SZ)
  /tmp/pk/bin/kvbench run "$@" --out "$dir/runs/$ts.csv" > "$dir/runs/$ts.log" 2>&1
  echo "$ts rc=$? $SECONDS" >> "$dir/index.txt"
done
date -u >> "$dir/started.txt"
cp "$caller" "$dir/call.sh"
tar cJf "$OUT/$name.tar.xz" -C "$OUT" "$name" && rm -rf "$dir"
