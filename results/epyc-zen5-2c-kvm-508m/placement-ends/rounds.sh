#!/bin/bash
# The 44 runs paired in order as 22 rounds (runs 1 and 2, 3 and 4, ...: one build against itself)
# through kvbench compare, twice: as written (rounds-both-ends.md) and with every run's
# ceiling_barrier_end rows left out, as compare saw runs before them (rounds-start-only.md; the
# stripped copies go to a temporary folder). Run from the repository root: KVBENCH=build/kvbench.
set -e
D=results/epyc-zen5-2c-kvm-508m/placement-ends
K=${KVBENCH:-build/kvbench}
runs=($(ls $D/runs/*.csv.xz))
odd() { printf "%s\n" "$@" | awk 'NR % 2 == 1' | paste -sd,; }
even() { printf "%s\n" "$@" | awk 'NR % 2 == 0' | paste -sd,; }
$K compare "$(odd "${runs[@]}")" "$(even "${runs[@]}")" --format md --out $D/rounds-both-ends.md --force
tmp=$(mktemp -d)
for f in "${runs[@]}"; do xz -dc "$f" | grep -v ',ceiling_barrier_end,' > $tmp/$(basename "$f" .xz); done
stripped=($(ls $tmp/*.csv))
$K compare "$(odd "${stripped[@]}")" "$(even "${stripped[@]}")" --format md --out $D/rounds-start-only.md --force
rm -rf "$tmp"
