#!/usr/bin/env python3
"""decode_bin_ab_sum.py OUTDIR: per dtype, context and thread count, each round's median
ns_per_step of kv_new over kv_base (decode-bin-ab.sh's files, r<round>_<base|new>_<tag>.csv), the
median of those ratios and the rounds where new was faster."""
import csv, glob, os, re, statistics, sys
from collections import defaultdict

ns = defaultdict(list)  # (round, arm, dtype, context, threads) -> ns_per_step of the repetitions
for path in glob.glob(os.path.join(sys.argv[1], "r*_*_*.csv")):
    m = re.match(r"r(\d+)_(base|new)_(\w+)\.csv", os.path.basename(path))
    for row in csv.DictReader(open(path)):
        if row["aggregate"] == "none" and row["benchmark"] == "decode_step":
            key = (row["dtype"], int(row["context"]), int(row["threads"]))
            ns[(int(m[1]), m[2]) + key].append(float(row["ns_per_step"]))
ratios = defaultdict(list)
for (r, arm, *key), v in sorted(ns.items()):
    if arm == "new" and (r, "base", *key) in ns:
        ratios[tuple(key)].append(statistics.median(v) / statistics.median(ns[(r, "base", *key)]))
print("dtype context threads  new/base time per round (median, rounds faster)")
for (dt, ctx, t), v in sorted(ratios.items()):
    faster = sum(x < 1 for x in v)
    print(f"{dt:5} {ctx:7} {t:2}  " + " ".join(f"{x:.3f}" for x in v) +
          f"  ({statistics.median(v):.3f}, {faster}/{len(v)})")
