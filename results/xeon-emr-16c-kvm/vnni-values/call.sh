#!/bin/bash
# The device call of this folder (2026-12-03): ../../epyc-zen5-2c-kvm/kernel-rate/vnni-values.sh
# on the lent EMR host, 5 rounds at 1 and 16 threads, with dtype_rate built on the Zen 5 guest
# (g++ -O3 -march=x86-64-v4 -mavx512vnni -pthread) and carried in .carry/bin.
self=$(readlink -f "$0")
cd "$(dirname "$self")/../../.."
lscpu > "$OUT/lscpu.txt"
THREADS="1 16" PREBUILT=.carry/bin results/epyc-zen5-2c-kvm/kernel-rate/vnni-values.sh "$OUT/vnni-values.txt" 5 > /dev/null
echo "rc=$? $(date -u +%H:%M:%S)"
