#!/usr/bin/env python3
"""Rounds of the 16-thread stream (kernel_bench overlap_threads/, with overlap/ L1 and floor/ rows)
each followed by decode_step at 16 threads from DRAM (kvbench CSV): per round and dtype, the share
of the FMA-free stream's rate that the stream keeps at the kernel's arithmetic per line (linear
between the nearest FMA counts) and the step's % of its bracketed ceiling; medians, ranges and the
per-round difference.  usage: rounds16.py DIR  (DIR/stream-R.json, DIR/step-R.csv.xz)
"""
import csv, glob, json, lzma, os, statistics, sys

d = sys.argv[1]
rows = {dt: {"stream": [], "step": [], "diff": [], "ns": [], "wait": []} for dt in ("fp16", "bf16", "int8")}
base = []
for path in sorted(glob.glob(os.path.join(d, "stream-*.json")), key=lambda p: int(p.split("-")[-1][:-5])):
    r = path.split("-")[-1][:-5]
    g = {b["name"].replace("/real_time", ""): b["GB/s"] for b in json.load(open(path))["benchmarks"]
         if "error_occurred" not in b}
    fmas = sorted(int(n.split("/")[1].split(":")[1]) for n in g if n.startswith("overlap_threads/"))
    pts = [(64.0 / g["overlap/fma:%d/pf:4096/L1" % f],
            g["overlap_threads/fma:%d/threads:16" % f] / g["overlap_threads/fma:0/threads:16"]) for f in fmas]
    base.append(g["overlap_threads/fma:0/threads:16"])
    step = {}
    for row in csv.DictReader(lzma.open(os.path.join(d, "step-%s.csv.xz" % r), "rt")):
        if row["aggregate"] == "median" and row["benchmark"] == "decode_step":
            step[row["dtype"]] = (float(row["pct_of_ceiling"]), float(row["barrier_wait_pct"] or 0))
    for dt in rows:
        x = 64.0 / g["floor/%s/G:2/ctx:512" % dt]
        keep = None
        for (x0, s0), (x1, s1) in zip(pts, pts[1:]):
            if x0 <= x <= x1:
                keep = 100 * (s0 + (s1 - s0) * (x - x0) / (x1 - x0))
        if keep is None or dt not in step:
            continue
        rows[dt]["stream"].append(keep)
        rows[dt]["step"].append(step[dt][0])
        rows[dt]["diff"].append(keep - step[dt][0])
        rows[dt]["ns"].append(x)
        rows[dt]["wait"].append(step[dt][1])
m = lambda v: "%.1f (%.1f-%.1f)" % (statistics.median(v), min(v), max(v))
print("%d rounds; the FMA-free 16-thread stream read %s GB/s\n" % (len(base), m(base)))
print("| dtype | ns/line from L2 | the stream keeps, % | decode_step, % of its bracketed ceiling | stream minus step, points | rounds the stream kept more | workers' barrier wait, % |")
print("|---|---|---|---|---|---|---|")
for dt, v in rows.items():
    print("| %s | %s | %s | %s | %s | %d of %d | %s |" % (dt, m(v["ns"]), m(v["stream"]), m(v["step"]), m(v["diff"]),
                                                     sum(x > 0 for x in v["diff"]), len(v["diff"]), m(v["wait"])))
