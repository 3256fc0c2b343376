#!/usr/bin/env python3
"""vnni_values_summary.py FILE...: per place, thread count and VNNI arm, the arm's rate over the
kernel form's in the same round (min / median / max over the rounds of every FILE), from
vnni-values.sh's outputs."""
import collections
import re
import statistics
import sys

per = collections.defaultdict(dict)  # round's header -> (place, threads, arm) -> GB/s
arms = []
rnd = None
for line in (line for path in sys.argv[1:] for line in open(path)):
    if line.startswith("# round"):
        rnd = line  # round, threads and its start time: unique over the files
        continue
    m = re.match(r"(\S+) (\d+T) (\S+) .* ([\d.]+) GB/s", line)
    if m:
        per[rnd][(m[1], m[2], m[3])] = float(m[4])
        if (m[1], m[2], m[3]) not in arms:
            arms.append((m[1], m[2], m[3]))
print("| place | threads | arm | rate over the kernel form's (min / median / max) | faster in | kernel form GB/s |")
print("|---|---|---|---|---|---|")
for place, threads, arm in arms:
    if arm == "kernel":
        continue
    rounds = [i for i in per if (place, threads, arm) in per[i] and (place, threads, "kernel") in per[i]]
    ratios = [per[i][(place, threads, arm)] / per[i][(place, threads, "kernel")] for i in rounds]
    kernel = [per[i][(place, threads, "kernel")] for i in rounds]
    print(f"| {place} | {threads} | {arm} | {min(ratios):.2f} / {statistics.median(ratios):.2f} / {max(ratios):.2f} | "
          f"{sum(r > 1 for r in ratios)} of {len(ratios)} | {min(kernel):.1f}-{max(kernel):.1f} |")
