#!/usr/bin/env python3
"""Each bracketed decode_step row of a `kvbench run` of three-loop read ceilings (its console log
and CSV, plain or .xz): its GB/s as % of the plain loop's bracket alone (main before 2026-12-06d),
of the faster of plain and window (2026-12-06d) and of all three loops (2026-12-06e on, what it is
held to), and in how many of its brackets two streams read the most.
usage: bracket_three.py RUN.log[.xz] RUN.csv[.xz]"""
import csv, lzma, re, sys


def open_text(path):
    return lzma.open(path, "rt", errors="replace") if path.endswith(".xz") else open(path, errors="replace")


heading = re.compile(r"\[\d+/\d+\] decode_step .*?ctx=(\d+) (\w+) t=(\d+)")
bracket = re.compile(r"ceiling bracket (?:before|after): ceiling_read (\S+) \d+ thread\(s\) ([\d.]+) GB/s "
                     r"\(plain loop ([\d.]+), T[02] window ([\d.]+), two streams ([\d.]+)")
brackets, row = {}, None
for line in open_text(sys.argv[1]):
    if m := heading.search(line):
        row = (m.group(2), m.group(3), m.group(1))
        brackets[row] = []
    elif (m := bracket.search(line)) and row:
        brackets[row].append(tuple(float(m.group(i)) for i in (2, 3, 4, 5)))
gbps = {}
for r in csv.DictReader(open_text(sys.argv[2])):
    if r["benchmark"] == "decode_step" and r["aggregate"] == "median":
        gbps[(r["dtype"], r["threads"], r["context"])] = (r["ws_level"], float(r["gbps"]))
print("| dtype | threads | context | level | GB/s | % of plain | % of plain, window | % of all three | two streams set |")
print("|---|---|---|---|---|---|---|---|---|")
for key, b in brackets.items():
    if not b or key not in gbps:
        continue
    level, g = gbps[key]
    plain = max(x[1] for x in b)
    two = max(max(x[1], x[2]) for x in b)
    three = max(x[0] for x in b)
    won = sum(x[3] > max(x[1], x[2]) for x in b)
    print(f"| {key[0]} | {key[1]} | {key[2]} | {level} | {g:.2f} | {100 * g / plain:.1f} | {100 * g / two:.1f} | "
          f"{100 * g / three:.1f} | {won} of {len(b)} |")
