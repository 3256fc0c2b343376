#!/usr/bin/env python3
"""append_ab_sum.py DIR [ARMS]: summarise append-ab.sh's rounds (DIR/r<round>_<arm>.csv).

Per configuration and arm: append / append_memcpy per round (the target's ratio, both rows from
one run), its median over the rounds, and the medians of the two rows' ns per step. ARMS (default
"base new") orders the arms."""
import csv
import glob
import os
import re
import statistics as st
import sys
from collections import defaultdict

d = sys.argv[1]
arms = (sys.argv[2] if len(sys.argv) > 2 else "base new").split()
ratios = defaultdict(list)  # (arm, dtype, kv_heads, context, threads) -> per-round ratios
times = defaultdict(list)  # (arm, benchmark, dtype, kv_heads, context, threads) -> ns per step
for f in sorted(glob.glob(os.path.join(d, "r*_*.csv"))):
    m = re.match(r"r(\d+)_(\w+)\.csv$", os.path.basename(f))
    if not m or m[2] not in arms:
        continue
    arm = m[2]
    rows = {}
    for row in csv.DictReader(open(f)):
        if row["aggregate"] == "median":
            key = (row["dtype"], row["kv_heads"], row["context"], row["threads"])
            rows[(row["benchmark"],) + key] = float(row["ns_per_step"])
            times[(arm, row["benchmark"]) + key].append(float(row["ns_per_step"]))
    for (bench, *key), ns in rows.items():
        if bench == "append" and ("append_memcpy", *key) in rows:
            ratios[(arm, *key)].append(ns / rows[("append_memcpy", *key)])

configs = sorted({k[1:] for k in ratios}, key=lambda k: (k[0], int(k[1]), int(k[2]), int(k[3])))
for dt, kv, ctx, th in configs:
    for arm in arms:
        r = ratios.get((arm, dt, kv, ctx, th), [])
        if r:
            print(f"{arm:5} {dt} {kv} KV heads ctx {ctx} {th}T append/memcpy per round: "
                  + " ".join(f"{x:.2f}" for x in r) + f"  median {st.median(r):.2f}")
print()
print("| dtype | KV heads | context | threads | "
      + " | ".join(f"{a}: append ns | {a}: memcpy ns | {a}: ratio" for a in arms) + " |")
print("|---|---|---|---|" + "---|---|---|" * len(arms))
for dt, kv, ctx, th in configs:
    cells = []
    for arm in arms:
        ap = times.get((arm, "append", dt, kv, ctx, th))
        mc = times.get((arm, "append_memcpy", dt, kv, ctx, th))
        r = ratios.get((arm, dt, kv, ctx, th))
        cells += [f"{st.median(ap):.0f}" if ap else "", f"{st.median(mc):.0f}" if mc else "",
                  f"{st.median(r):.2f}" if r else ""]
    print(f"| {dt} | {kv} | {ctx} | {th} | " + " | ".join(cells) + " |")
