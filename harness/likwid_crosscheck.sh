#!/bin/bash
# Cross-checks kvbench's read ceiling against likwid-bench load_avx512 (load_avx on CPUs without
# AVX-512, where load_avx512 cannot run) at the same total working
# set and thread count (likwid sizes are decimal: 1GB = 1e9 B; kvbench-harness-info uses the same).
# Each pair runs back to back, ROUNDS times; compare the best of each. Needs a quiet machine.
# usage: harness/likwid_crosscheck.sh [build-dir] [rounds] [SIZE:THREADS ...]   (default 1GB:1 1GB:2 16MB:2)
set -euo pipefail
build=${1:-build}
rounds=${2:-3}
info="$build/harness/kvbench-harness-info"
[ -x "$info" ] || { echo "no $info: build first" >&2; exit 2; }
command -v likwid-bench >/dev/null || { echo "likwid-bench not installed" >&2; exit 2; }
kernel=load_avx512
grep -qw avx512f /proc/cpuinfo 2>/dev/null || kernel=load_avx
# likwid-bench's buffers take huge pages only where THP is "always"; kvbench's ask for them
# (madvise). On the Zen 5 guest under "madvise" likwid's 2-thread load read 65-66 GB/s against
# kvbench's 74-76, and under "always" 78-82 against 77-83.
thp=$(sed -n 's/.*\[\(.*\)\].*/\1/p' /sys/kernel/mm/transparent_hugepage/enabled 2>/dev/null || true)
echo "# likwid-bench -t $kernel; transparent huge pages: ${thp:-unknown}"
# kvbench's read ceiling is the fastest of its plain loop, the loop with the kernels' prefetch
# window and the plain loop over two and over four streams (harness/ceilings.h); likwid's load
# reads one stream with no software prefetch, like the plain loop, printed beside it.
printf "%-6s %-7s %-5s %14s %14s %7s %14s %7s\n" size threads round likwid_MB/s kvbench_MB/s ratio plain_MB/s ratio
shift $(( $# < 2 ? $# : 2 ))
configs=("$@")
[ ${#configs[@]} -gt 0 ] || configs=(1GB:1 1GB:2 16MB:2)
for cfg in "${configs[@]}"; do
  set -- ${cfg/:/ }
  for r in $(seq 1 "$rounds"); do
    l=$(likwid-bench -t "$kernel" -w "S0:$1:$2" 2>&1 | awk '/^MByte\/s/{print $2}')
    out=$("$info" -t "$2" --read-at "$1" --min-seconds 1)
    k=$(awk '/^ceiling_read/{gsub(/[()]/, "", $(NF-1)); print $(NF-1)}' <<<"$out")
    p=$(awk '/^  plain loop/{gsub(/,/, "", $3); print $3 * 1000}' <<<"$out")
    p=${p:-$k}  # a build whose ceiling timed the plain loop alone prints no loops
    printf "%-6s %-7s %-5s %14.0f %14.0f %7.3f %14.0f %7.3f\n" "$1" "$2" "$r" "$l" "$k" \
      "$(awk -v k="$k" -v l="$l" 'BEGIN{print k/l}')" "$p" "$(awk -v k="$p" -v l="$l" 'BEGIN{print k/l}')"
  done
done
