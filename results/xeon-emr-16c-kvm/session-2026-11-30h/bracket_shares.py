#!/usr/bin/env python3
"""Per arm of a kvbench ab folder, each decode_step row's % of its bracketed DRAM read ceiling
(the median repetition of each run), median and range over the rounds, and the per-round
difference new minus base.  usage: bracket_shares.py DIR  (DIR/base-R.csv, DIR/new-R.csv)
"""
import csv, glob, os, statistics, sys

d = sys.argv[1]
pct = {}  # (arm, round) -> {dtype: pct}
for path in glob.glob(os.path.join(d, "*-*.csv")):
    arm, r = os.path.basename(path)[:-4].split("-")
    rows = csv.DictReader(line for line in open(path) if not line.startswith("#"))
    pct[(arm, int(r))] = {row["dtype"]: float(row["pct_of_ceiling"]) for row in rows
                          if row["aggregate"] == "median" and row["benchmark"] == "decode_step"}
rounds = sorted(r for (a, r) in pct if a == "base" and ("new", r) in pct)
m = lambda v: "%.1f (%.1f-%.1f)" % (statistics.median(v), min(v), max(v))
print("%d rounds\n" % len(rounds))
print("| dtype | base, % of ceiling | new, % of ceiling | new minus base, points | rounds new higher |")
print("|---|---|---|---|---|")
for dt in ("fp32", "fp16", "bf16", "int8"):
    b = [pct[("base", r)][dt] for r in rounds if dt in pct[("base", r)] and dt in pct[("new", r)]]
    n = [pct[("new", r)][dt] for r in rounds if dt in pct[("base", r)] and dt in pct[("new", r)]]
    diff = [y - x for x, y in zip(b, n)]
    print("| %s | %s | %s | %s | %d of %d |" % (dt, m(b), m(n), m(diff), sum(x > 0 for x in diff), len(diff)))
