#!/usr/bin/env python3
"""decode_bin_ab_sum.py OUTDIR: per dtype and thread count, each round's median ns_per_step of
kv_new over kv_base (decode-bin-ab.sh's files), and the median of those ratios."""
import csv, glob, os, re, statistics, sys
from collections import defaultdict

ns = defaultdict(list)  # (round, arm, dtype, threads) -> ns_per_step of the repetitions
for path in glob.glob(os.path.join(sys.argv[1], "r*_*_*.csv")):
    m = re.match(r"r(\d+)_(base|new)_(\w+)\.csv", os.path.basename(path))
    for row in csv.DictReader(open(path)):
        if row["aggregate"] == "none" and row["benchmark"] == "decode_step":
            ns[(int(m[1]), m[2], m[3], int(row["threads"]))].append(float(row["ns_per_step"]))
ratios = defaultdict(list)
for (r, arm, dt, t), v in sorted(ns.items()):
    if arm == "new" and (r, "base", dt, t) in ns:
        ratios[(dt, t)].append(statistics.median(v) / statistics.median(ns[(r, "base", dt, t)]))
print("dtype threads  new/base time per round (median)")
for (dt, t), v in sorted(ratios.items()):
    print(f"{dt:5} {t:2}  " + " ".join(f"{x:.3f}" for x in v) + f"  ({statistics.median(v):.3f})")
