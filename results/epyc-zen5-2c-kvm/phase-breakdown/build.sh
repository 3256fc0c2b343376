#!/bin/bash
# Record of a measurement, not part of the build: builds phase_harness once per variant of
# kernels/attention.cc into OUTDIR, against a kvbench build folder (default build).
#   results/epyc-zen5-2c-kvm/phase-breakdown/build.sh OUTDIR [BUILD]
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../../.." && pwd)
out=$(mkdir -p "$1" && cd "$1" && pwd)
build=$(cd "${2:-$root/build}" && pwd)
python3 "$here/make_variants.py" "$root/kernels/attention.cc" "$out"
for v in cur nopf sconly aconly smonly q8; do
  c++ -DHWY_SHARED_DEFINE -I"$root" -I"$out" -O3 -DNDEBUG -std=c++20 -c "$out/$v.cc" -o "$out/$v.o"
  c++ -O2 -std=c++20 -I"$root" "$here/phase_harness.cc" "$out/$v.o" "$build/kernels/libkvbench_kernels.a" -lhwy -o "$out/phase_$v"
done
