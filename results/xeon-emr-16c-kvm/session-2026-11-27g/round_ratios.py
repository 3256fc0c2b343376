#!/usr/bin/env python3
"""Per-round time ratios B/A (A's GB/s over B's, the median of each run's repetitions) for every
decode_step row of phases.sh output. Usage: round_ratios.py DIR A B"""
import csv, glob, os, re, statistics as st, sys
from collections import defaultdict

d, a, b = sys.argv[1:4]
def runs(binary):
    out = defaultdict(dict)  # (dtype, ctx, threads) -> {round: median GB/s}
    for c in glob.glob(os.path.join(d, f"{binary}_*_*.csv")):
        rnd = int(re.search(rf"{binary}_(\d+)_(?:[a-z0-9-]+_)?\d+\.csv$", c).group(1))
        g = defaultdict(list)
        for r in csv.DictReader(open(c)):
            if r["benchmark"] == "decode_step" and r["aggregate"] in ("", "none"):
                g[(r["dtype"], int(r["context"]), int(r["threads"]))].append(float(r["gbps"]))
        for k, v in g.items(): out[k][rnd] = st.median(v)
    return out
A, B = runs(a), runs(b)
for k in sorted(A):
    rs = [A[k][r] / B[k][r] for r in sorted(A[k]) if r in B[k]]
    print(f"{k[0]} ctx {k[1]} {k[2]} thr: time {b}/{a} per round " + " ".join(f"{x:.2f}" for x in rs) +
          f"  median {st.median(rs):.2f}, {b} faster in {sum(x < 1 for x in rs)} of {len(rs)}")
