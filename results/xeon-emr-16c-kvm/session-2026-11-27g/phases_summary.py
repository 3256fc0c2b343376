#!/usr/bin/env python3
"""Summarises phases.sh output: per binary and row (dtype, context), per round, the layer period
(mean ticks per layer), the slowest worker's mean attention, the mean barrier wait share, the
release gap (period minus first-start-to-last-arrival span), and decode_step GB/s from the CSVs.
Usage: phases_summary.py DIR BIN..."""
import csv, glob, os, re, statistics as st, sys
from collections import defaultdict

d, bins = sys.argv[1], sys.argv[2:]
rows = defaultdict(list)  # (bin, dtype, ctx) -> [(round, period, attn_max, wait%, release, gbps)]
for b in bins:
    for err in sorted(glob.glob(os.path.join(d, f"{b}_*.err"))):
        rnd = int(re.search(r"_(\d+)\.err$", err).group(1))
        gb = {}
        for c in glob.glob(os.path.join(d, f"{b}_{rnd}_*.csv")):
            for r in csv.DictReader(open(c)):
                if r["benchmark"] == "decode_step" and r["aggregate"] in ("", "none") and r["threads"] != "1":
                    gb.setdefault((r["dtype"], r["context"]), []).append(float(r["gbps"]))
        blocks = open(err).read().split("PHASES ")[1:]
        seen = defaultdict(int)
        for blk in blocks:
            head = blk.splitlines()[0].split()
            dt, ctx = head[0], head[2].split("=")[1]
            m = re.search(r"spread \(last - first\) (\d+) ticks/layer, layer span \(last arrival - first start\) (\d+)", blk)
            ws = re.findall(r"merge\s+(\d+) attn\s+(\d+) app\s+(\d+) bar\s+(\d+) tot\s+(\d+)", blk)
            if not m or not ws: continue
            period = st.mean(float(w[4]) for w in ws)
            wait = 100 * sum(float(w[3]) for w in ws) / sum(float(w[4]) for w in ws)
            attn = max(float(w[1]) for w in ws)
            g = gb.get((dt, ctx), [])
            i = seen[(dt, ctx)]; seen[(dt, ctx)] += 1
            rows[(b, dt, ctx)].append((rnd, period, attn, wait, period - float(m.group(2)), g[i] if i < len(g) else float("nan")))
print("binary row: per run, median over runs -- layer period (ticks), slowest worker's attention, barrier wait %, release gap, GB/s")
for k in sorted(rows, key=lambda k: (k[1], int(k[2]), bins.index(k[0]))):
    v = rows[k]
    med = lambda i: st.median(x[i] for x in v)
    print(f"{k[0]:>10} {k[1]} ctx {k[2]:>5}: period {med(1):8.0f}  attn max {med(2):8.0f}  wait {med(3):5.1f}%  release {med(4):6.0f}  GB/s {med(5):6.1f}  (n={len(v)})")
