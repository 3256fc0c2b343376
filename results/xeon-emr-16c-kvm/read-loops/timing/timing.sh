#!/bin/bash
# README command 1's sweep on the lent Xeon, bracketed and not, twice each, as ../default-bracketed/
# did with main 3d107d4: how long a run takes with the two-loop brackets.
source results/device-env.sh
K=/tmp/pk/bin/kvbench
mkdir -p /tmp/t && cd /tmp/t
lscpu > lscpu.txt
for run in b1 u1 b2 u2; do
  case $run in b*) extra="" ;; u*) extra="--ceiling-bracket=0" ;; esac
  s=$(date +%s.%N)
  $K run --llc 64MiB $extra --out $run.csv > $run.log 2>&1
  echo "$run rc $? $(awk -v s=$s -v e=$(date +%s.%N) 'BEGIN{printf "%.1f", e-s}') s" | tee -a times.txt
done
tar cJf $OUT/timing.tar.xz .
