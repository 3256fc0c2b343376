#!/bin/bash
# 2026-12-03, EMR host: what 16 vCPUs give. kvbench ceilings (every level's read/write/copy and
# the FP32 FMA burst) on the first N PUs for N = 1..16, twice, and on each pair of PU 0 with
# another PU (pus:0+k), to see whether the 16-thread ceilings' half-a-core per vCPU is fixed
# pairs of vCPUs on one core or the host's load.
cd "$(dirname "$0")/.."
mkdir -p /tmp/pk && tar xJf .carry/pack.tar.xz -C /tmp/pk
export LD_LIBRARY_PATH=/tmp/pk/lib KVBENCH_MODELS_DIR=$PWD/configs/models
K=/tmp/pk/bin/kvbench
D=$OUT/vcpu-share
mkdir -p $D
lscpu > $D/lscpu.txt
$K topo > $D/topo.txt 2>&1
sweep() {
  for n in 1 2 4 6 8 10 12 14 16; do
    echo "## $(date -u +%T) threads $n"
    timeout 60 $K ceilings --threads $n --min-time 0.1 --llc 64MiB 2>&1
  done
}
sweep > $D/sweep-1.txt
for k in $(seq 1 15); do
  echo "## $(date -u +%T) pus:0+$k"
  timeout 60 $K ceilings --threads 2 --pin pus:0+$k --min-time 0.05 --llc 64MiB 2>&1
done > $D/pairs.txt
sweep > $D/sweep-2.txt
cp "$0" $D/call.sh
tar cJf $OUT/vcpu-share.tar.xz -C $OUT vcpu-share && rm -rf $D
