#!/bin/bash
# Record of a measurement, not part of the build: builds phase_harness once per variant of
# kernels/attention.cc (make_variants.py) into OUTDIR, against a kvbench build folder (default
# build). Run from the repository root.
#   results/epyc-zen5-2c-kvm/phase-breakdown/build.sh OUTDIR [BUILD]
set -euo pipefail
here=results/epyc-zen5-2c-kvm/phase-breakdown
bash "$here/harness_variants.sh" "$1" "$here/make_variants.py" "${2:-}" > /dev/null
