#!/bin/bash
# exp-scales-variants.sh OUTDIR [ROUNDS]: copies of kernels/attention.cc (exp-scales-variants.py)
# in the phase harness: cur (unchanged), hwexp (hn::Exp instead of ExpNonPositive), nopf (no
# prefetch of the row scales), main (both: the kernel before they landed), noexp (no exponential
# at all: timing only, wrong results), l1sc (row scales read from the first 64 of the call,
# L1-resident: timing only). Then ROUNDS alternating rounds (default 4) on PU 1 of 28 layers x 8
# KV heads from DRAM at G = 2: int8 and bf16 at the contexts of softmax-knockout.sh (2270, 1171)
# and int8 at 18157 (1 GiB). Run from the repository root.
set -euo pipefail
here=results/epyc-zen5-2c-kvm
names=$(bash "$here/phase-breakdown/harness_variants.sh" "$1" "$here/kernel-rate/exp-scales-variants.py" | tail -1)
for ((r = 1; r <= ${2:-4}; r++)); do
  for v in $names; do
    for spec in int8:2270 bf16:1171 int8:18157; do
      echo "r$r $v $(taskset -c 1 "$1/phase_$v" 28 "${spec#*:}" 2 "${spec%:*}" 3 1)"
    done
  done
done
