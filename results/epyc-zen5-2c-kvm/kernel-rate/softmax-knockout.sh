#!/bin/bash
# softmax-knockout.sh OUTDIR [ROUNDS]: copies of kernels/attention.cc with one part knocked out
# (timing only, the results are wrong on purpose): cur (unchanged), nosm (no online softmax: the
# V phase weighs rows by the raw scores), novs (no V row-scale multiply), noacc (no V
# accumulation), as softmax-knockout.py says, each linked into ../phase-breakdown/phase_harness.cc
# against build/ (../phase-breakdown/harness_variants.sh), then ROUNDS alternating rounds
# (default 4) on PU 1 of 28 layers from DRAM at G = 2: int8 2270 positions, bf16 and fp16 1171
# (ns per position and KV head). Run from the repository root.
set -euo pipefail
here=results/epyc-zen5-2c-kvm
out=$(mkdir -p "$1" && cd "$1" && pwd)
bash "$here/phase-breakdown/harness_variants.sh" "$out" "$here/kernel-rate/softmax-knockout.py" > /dev/null
for ((r = 1; r <= ${2:-4}; r++)); do
  for v in cur nosm novs noacc; do
    for spec in int8:2270 bf16:1171 fp16:1171; do
      echo "r$r $v $(taskset -c 1 "$out/phase_$v" 28 "${spec#*:}" 2 "${spec%:*}" 3 1)"
    done
  done
done
