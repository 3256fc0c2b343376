#!/usr/bin/env python3
"""Per CSV (named after its arm), one line per benchmark, dtype and context: the median row's
GB/s and barrier_wait_pct, the PU it names and that PU's share of the waits, and the same for
each repetition.  Usage: table.py FILE.csv[.xz]...  (markdown on stdout)"""
import csv, lzma, os, sys

print("| run | benchmark | dtype | context | GB/s | waited % | named PU (share %) | repetitions: PU (share %) |")
print("|---|---|---|---|---|---|---|---|")
for path in sys.argv[1:]:
    with (lzma.open(path, "rt") if path.endswith(".xz") else open(path)) as f:
        rows = [r for r in csv.DictReader(f) if r["barrier_wait_pct"]]
    keys = sorted({(r["benchmark"], r["dtype"], int(r["context"])) for r in rows}, key=lambda k: (k[1], k[2], k[0]))
    for b, dtype, ctx in keys:
        mine = [r for r in rows if (r["benchmark"], r["dtype"], int(r["context"])) == (b, dtype, ctx)]
        med = next(r for r in mine if r["aggregate"] == "median")
        reps = ", ".join(f'{r["barrier_slowest_pu"]} ({float(r["barrier_slowest_pct"]):.0f})'
                         for r in mine if r["aggregate"] == "none")
        print(f'| {os.path.basename(path).split(".")[0]} | {b} | {dtype} | {ctx} | {float(med["gbps"]):.1f} | '
              f'{float(med["barrier_wait_pct"]):.1f} | {med["barrier_slowest_pu"]} ({float(med["barrier_slowest_pct"]):.0f}) | {reps} |')
