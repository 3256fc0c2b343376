#!/usr/bin/env python3
"""Summarises kernel_bench runs of its overlap/, floor/ and DRAM attention rows (JSON, one per round).

Per round, for each attention kernel: its arithmetic per 64-byte line (its floor/ row: rows in L2,
64 / GB/s), the share of the read rate that the overlap/ stream keeps at that much arithmetic
(linear between the two nearest fma counts of the L1 curve, T0 window 4096 bytes ahead like the
kernels') and the share its own DRAM row keeps (its GB/s over overlap/fma:0's). Shares are taken
within a round; the table gives the median and range over the rounds.
usage: overlap_table.py run1.json [run2.json ...]
"""
import json, statistics, sys


def load(path):
    rows = {}
    for b in json.load(open(path))["benchmarks"]:
        if b.get("run_type", "iteration") == "iteration" and "error_occurred" not in b:
            rows[b["name"]] = b["GB/s"]  # GB/s: the counter is already a rate
    return rows


def curve(rows, pf):
    pts = []
    for name in rows:
        if name.startswith("overlap/") and name.endswith("/pf:%d/L1" % pf):
            fma = int(name.split("/")[1].split(":")[1])
            pts.append((fma, 64.0 / rows[name], rows[name.replace("/L1", "/DRAM")]))
    pts.sort()
    return [(f, x, d / pts[0][2]) for f, x, d in pts], pts[0][2]


def keeps(pts, ns_line):
    for (_, x0, s0), (_, x1, s1) in zip(pts, pts[1:]):
        if x0 <= ns_line <= x1:
            return s0 + (s1 - s0) * (ns_line - x0) / (x1 - x0)
    return None


def cell(values, pct=True):
    values = [v for v in values if v is not None]
    if not values:
        return "-"
    k = 100 if pct else 1
    fmt = "%.1f" if pct else "%.2f"
    return (fmt % (k * statistics.median(values))) + " (" + (fmt % (k * min(values))) + "-" + (fmt % (k * max(values))) + ")"


runs = [load(p) for p in sys.argv[1:]]
print("%d round(s). overlap/ stream, T0 window 4096 B ahead: fma per vector, ns per line from L1, share of "
      "fma:0's DRAM rate (median (range)); without the window in the last column" % len(runs))
print()
print("| fma | ns/line, L1 | keeps, window | keeps, no window |")
print("|---|---|---|---|")
curves = [curve(r, 4096)[0] for r in runs]
bare = [curve(r, 0)[0] for r in runs]
for i, (f, _, _) in enumerate(curves[0]):
    print("| %d | %s | %s | %s |" % (f, cell([c[i][1] for c in curves], False), cell([c[i][2] for c in curves]),
                                    cell([c[i][2] for c in bare])))
print("\nfma:0's DRAM rate: " + ", ".join("%.2f" % curve(r, 4096)[1] for r in runs) + " GB/s\n")
print("| kernel (DRAM row) | floor row | ns/line from L2 | the stream keeps | the kernel keeps |")
print("|---|---|---|---|---|")
for name in sorted(runs[0]):
    if not name.startswith(("fast/", "fast_group/")) or "ctx:16384" not in name:
        continue
    parts = name.split("/")
    g = int(parts[-1].split(":")[1]) if name.startswith("fast_group/") else 2
    floor = "floor/%s/G:%d/ctx:512" % (parts[1], g)
    if floor not in runs[0]:
        continue
    ns = [64.0 / r[floor] for r in runs]
    stream = [keeps(c, x) for c, x in zip(curves, ns)]
    kernel = [r[name] / curve(r, 4096)[1] for r in runs]
    print("| %s | %s | %s | %s | %s |" % (name, floor, cell(ns, False), cell(stream), cell(kernel)))
