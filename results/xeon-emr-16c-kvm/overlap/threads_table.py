#!/usr/bin/env python3
"""overlap_threads/ rounds (kernel_bench JSON) against decode_step DRAM rows (kvbench CSV).

Per round and thread count: the share of the fma:0 row's GB/s that each fma count keeps; the
arithmetic per line of each count (overlap/.../L1) and of the kernels (floor/, G = 2); the share
the stream keeps at each kernel's arithmetic (linear between the nearest counts). Medians over the
rounds, range in brackets; then decode_step's % of its bracketed ceiling from the CSV, if given.
usage: threads_table.py round1.json [...] [decode.csv or decode.csv.xz]
"""
import csv, json, lzma, statistics, sys

jsons = [a for a in sys.argv[1:] if a.endswith(".json")]
csvs = [a for a in sys.argv[1:] if a.endswith((".csv", ".csv.xz"))]
runs = []
for path in jsons:
    d = {}
    for b in json.load(open(path))["benchmarks"]:
        if "error_occurred" not in b and b.get("run_type", "iteration") == "iteration":
            d[b["name"].replace("/real_time", "")] = b["GB/s"]
    runs.append(d)
fmas = sorted({int(n.split("/")[1].split(":")[1]) for n in runs[0] if n.startswith("overlap_threads/")})
threads = sorted({int(n.split("threads:")[1]) for n in runs[0] if n.startswith("overlap_threads/")})
med = lambda v: "%.1f (%.1f-%.1f)" % (statistics.median(v), min(v), max(v))

def share(r, f, t):
    return 100 * r["overlap_threads/fma:%d/threads:%d" % (f, t)] / r["overlap_threads/fma:0/threads:%d" % t]

def l1(r, f):
    return 64.0 / r["overlap/fma:%d/pf:4096/L1" % f]

print("| FMAs per vector | ns/line from L1 | " + " | ".join("%d thread%s" % (t, "s" if t > 1 else "") for t in threads) + " |")
print("|---" * (2 + len(threads)) + "|")
for f in fmas:
    print("| %d | %.2f | " % (f, statistics.median([l1(r, f) for r in runs])) +
          " | ".join(med([share(r, f, t) for r in runs]) for t in threads) + " |")
print("| fma:0 GB/s | | " + " | ".join(med([r["overlap_threads/fma:0/threads:%d" % t] for r in runs]) for t in threads) + " |")

def keeps(r, t, x):
    pts = [(l1(r, f), share(r, f, t)) for f in fmas]
    for (x0, s0), (x1, s1) in zip(pts, pts[1:]):
        if x0 <= x <= x1:
            return s0 + (s1 - s0) * (x - x0) / (x1 - x0)
    return None

step = {}
for path in csvs:
    for row in csv.DictReader(lzma.open(path, "rt") if path.endswith(".xz") else open(path)):
        if row["aggregate"] == "median" and row["benchmark"] == "decode_step":
            step[(row["dtype"], int(row["threads"]))] = float(row["pct_of_ceiling"])
print()
print("| kernel, G = 2 | ns/line from L2 | " + " | ".join("%dT: stream / step" % t for t in threads) + " |")
print("|---" * (2 + len(threads)) + "|")
for dt in ("fp32", "fp16", "bf16", "int8"):
    name = "floor/%s/G:2/ctx:512" % dt
    xs = [64.0 / r[name] for r in runs]
    cells = []
    for t in threads:
        k = [keeps(r, t, x) for r, x in zip(runs, xs)]
        k = [v for v in k if v is not None]
        cells.append((med(k) if k else "-") + " / " + ("%.1f" % step[(dt, t)] if (dt, t) in step else "-"))
    print("| %s | %.2f | " % (dt, statistics.median(xs)) + " | ".join(cells) + " |")
