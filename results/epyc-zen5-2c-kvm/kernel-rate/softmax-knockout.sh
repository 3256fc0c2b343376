#!/bin/bash
# softmax-knockout.sh OUTDIR [ROUNDS]: copies of kernels/attention.cc with one part knocked out
# (timing only, the results are wrong on purpose): cur (unchanged), nosm (no online softmax: the
# V phase weighs rows by the raw scores), novs (no V row-scale multiply), noacc (no V
# accumulation), each linked into ../phase-breakdown/phase_harness.cc against build/, then ROUNDS
# alternating rounds (default 4) on PU 1 of 28 layers from DRAM at G = 2: int8 2270 positions,
# bf16 and fp16 1171 (ns per position and KV head). Run from the repository root.
set -euo pipefail
out=$(mkdir -p "$1" && cd "$1" && pwd)
root=$(pwd)
python3 - "$root/kernels/attention.cc" "$out" <<'PY'
import pathlib, sys
src = pathlib.Path(sys.argv[1]).read_text()
out = pathlib.Path(sys.argv[2])
SM = ("    for (g = 0; g < G; ++g) {\n      float* sg = s + g * kT;", "    for (g = 0; g < 0; ++g) {\n      float* sg = s + g * kT;")
VS = ("      if (a.vscale != nullptr)\n        for (std::int64_t r = 0; r < rows; ++r) sg[r] *= a.vscale[t + r] * kDecodeUnit<P>;", "")
ACC = ("    g = 0;\n    pass = 0;\n    const auto vpass", "    continue;\n    g = 0;\n    pass = 0;\n    const auto vpass")
for name, edits in {"cur": [], "nosm": [SM], "novs": [VS], "noacc": [ACC]}.items():
    s = src
    for a, b in edits:
        if a not in s:
            sys.exit(f"{name}: pattern not found (attention.cc changed): {a[:40]!r}")
        s = s.replace(a, b)
    s = s.replace('#define HWY_TARGET_INCLUDE "kernels/attention.cc"', f'#define HWY_TARGET_INCLUDE "{name}.cc"')
    (out / f"{name}.cc").write_text(s)
PY
for v in cur nosm novs noacc; do
  c++ -DHWY_SHARED_DEFINE -I"$root" -I"$out" -O3 -DNDEBUG -std=c++20 -c "$out/$v.cc" -o "$out/$v.o"
  c++ -O2 -std=c++20 -I"$root" "$root/results/epyc-zen5-2c-kvm/phase-breakdown/phase_harness.cc" "$out/$v.o" \
    "$root/build/kernels/libkvbench_kernels.a" -lhwy -o "$out/phase_$v"
done
for ((r = 1; r <= ${2:-4}; r++)); do
  for v in cur nosm novs noacc; do
    for spec in int8:2270 bf16:1171 fp16:1171; do
      echo "r$r $v $(taskset -c 1 "$out/phase_$v" 28 "${spec#*:}" 2 "${spec%:*}" 3 1)"
    done
  done
done
