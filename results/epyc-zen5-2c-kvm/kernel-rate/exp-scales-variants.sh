#!/bin/bash
# exp-scales-variants.sh OUTDIR [ROUNDS]: copies of kernels/attention.cc linked into
# ../phase-breakdown/phase_harness.cc against build/: cur (unchanged), hwexp (hn::Exp instead of
# ExpNonPositive), nopf (no prefetch of the row scales), main (both: the kernel before they
# landed), noexp (no exponential at all: timing only, wrong results), l1sc (row scales read from
# the first 64 of the call, L1-resident: timing only). Then ROUNDS alternating rounds (default 4)
# on PU 1 of 28 layers x 8 KV heads from DRAM at G = 2: int8 and bf16 at the contexts of
# softmax-knockout.sh (2270, 1171) and int8 at 18157 (1 GiB). Run from the repository root.
set -euo pipefail
out=$(mkdir -p "$1" && cd "$1" && pwd)
root=$(pwd)
python3 - "$root/kernels/attention.cc" "$out" <<'PY'
import pathlib, re, sys
src = pathlib.Path(sys.argv[1]).read_text()
out = pathlib.Path(sys.argv[2])
EXP = ("const auto p = ExpNonPositive(dt,", "const auto p = hn::Exp(dt,")
IDENT = ("const auto p = ExpNonPositive(dt, hn::Sub(hn::Load(dt, sg + r), m));",
         "const auto p = hn::Sub(hn::Load(dt, sg + r), m);")
PF = ("    if (a.kscale != nullptr && a.prefetch != SwPrefetch::kNone)\n", "    if (false)\n")
KS = ("const float* kscale = a.kscale ? a.kscale + t : nullptr;",
      "const float* kscale = a.kscale ? a.kscale + (t & 63) : nullptr;")
VS = ("sg[r] *= a.vscale[t + r] * kDecodeUnit<P>;", "sg[r] *= a.vscale[(t & 63) + r] * kDecodeUnit<P>;")
variants = {"cur": [], "hwexp": [EXP], "nopf": [PF], "main": [EXP, PF], "noexp": [IDENT], "l1sc": [KS, VS]}
for name, edits in variants.items():
    s = src
    for a, b in edits:
        if a not in s:
            sys.exit(f"{name}: pattern not found (attention.cc changed): {a[:50]!r}")
        s = s.replace(a, b, 1)
    s = s.replace('#define HWY_TARGET_INCLUDE "kernels/attention.cc"', f'#define HWY_TARGET_INCLUDE "{name}.cc"')
    (out / f"{name}.cc").write_text(s)
PY
vs="cur hwexp nopf main noexp l1sc"
for v in $vs; do
  c++ -DHWY_SHARED_DEFINE -I"$root" -I"$out" -O3 -DNDEBUG -std=c++20 -c "$out/$v.cc" -o "$out/$v.o" &
done
wait
for v in $vs; do
  c++ -O2 -std=c++20 -I"$root" "$root/results/epyc-zen5-2c-kvm/phase-breakdown/phase_harness.cc" "$out/$v.o" \
    "$root/build/kernels/libkvbench_kernels.a" -lhwy -o "$out/phase_$v"
done
for ((r = 1; r <= ${2:-4}; r++)); do
  for v in $vs; do
    for spec in int8:2270 bf16:1171 int8:18157; do
      echo "r$r $v $(taskset -c 1 "$out/phase_$v" 28 "${spec#*:}" 2 "${spec%:*}" 3 1)"
    done
  done
done
