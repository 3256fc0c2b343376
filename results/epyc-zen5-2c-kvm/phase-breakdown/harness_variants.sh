#!/bin/bash
# Record of measurements, not part of the build: copies of kernels/attention.cc with the edits of
# a spec (a Python file defining variants = {name: [(text, replacement), ...]}, every
# occurrence replaced), each linked into phase_harness.cc against build/ as OUTDIR/phase_<name>.
# Prints the names in the spec's order. BUILD: a kvbench build folder other than build/. Run from the
# repository root.
#   results/epyc-zen5-2c-kvm/phase-breakdown/harness_variants.sh OUTDIR SPEC.py [BUILD]
set -euo pipefail
out=$(mkdir -p "$1" && cd "$1" && pwd)
root=$(pwd)
build=$(cd "${3:-$root/build}" && pwd)
names=$(python3 - "$root/kernels/attention.cc" "$out" "$2" <<'PY'
import pathlib, runpy, sys
src = pathlib.Path(sys.argv[1]).read_text()
out = pathlib.Path(sys.argv[2])
for name, edits in runpy.run_path(sys.argv[3])["variants"].items():
    s = src
    for a, b in edits:
        if a not in s:
            sys.exit(f"{name}: pattern not found (attention.cc changed): {a[:50]!r}")
        s = s.replace(a, b)
    # Each copy names itself, or Highway's foreach_target re-includes the original per target.
    s = s.replace('#define HWY_TARGET_INCLUDE "kernels/attention.cc"', f'#define HWY_TARGET_INCLUDE "{name}.cc"')
    (out / f"{name}.cc").write_text(s)
    print(name)
PY
)
for v in $names; do
  c++ -DHWY_SHARED_DEFINE -I"$root" -I"$out" -O3 -DNDEBUG -std=c++20 -c "$out/$v.cc" -o "$out/$v.o" &
done
wait
for v in $names; do
  c++ -O2 -std=c++20 -I"$root" "$root/results/epyc-zen5-2c-kvm/phase-breakdown/phase_harness.cc" "$out/$v.o" \
    "$build/kernels/libkvbench_kernels.a" -lhwy -o "$out/phase_$v"
done
echo $names
