# Each bracketed decode_step row of a `kvbench run` (its console log and CSV, plain or .xz): its GB/s
# as % of a bracket of the plain read loop alone (what main before 2026-12-06d measured) and of the
# faster of the plain and the window loop (2026-12-06d), and how many of its brackets the prefetch
# window set. A run whose brackets timed two streams as well (2026-12-06e on) also gets its % of all
# three loops and how many brackets two streams set, and one that timed four streams too
# (2026-12-06g on) its % of all four, what it is held to, and how many brackets four streams set.
# usage: bracket_split.py RUN.log[.xz] RUN.csv[.xz]
import csv, lzma, re, sys


def open_text(path):
    return lzma.open(path, "rt", errors="replace") if path.endswith(".xz") else open(path, errors="replace")


heading = re.compile(r"\[\d+/\d+\] decode_step .*?ctx=(\d+) (\w+) t=(\d+)")
bracket = re.compile(r"ceiling bracket (?:before|after): ceiling_read (\S+) \d+ thread\(s\) ([\d.]+) GB/s "
                     r"\(plain loop ([\d.]+), T[02] window ([\d.]+)(?:, two streams ([\d.]+))?(?:, four streams ([\d.]+))?")
brackets, row = {}, None
for line in open_text(sys.argv[1]):
    if m := heading.search(line):
        row = (m.group(2), m.group(3), m.group(1))
        brackets[row] = []
    elif (m := bracket.search(line)) and row:
        brackets[row].append((m.group(1), float(m.group(2)), float(m.group(3)), float(m.group(4)),
                              float(m.group(5)) if m.group(5) else None, float(m.group(6)) if m.group(6) else None))
gbps = {}
for r in csv.DictReader(open_text(sys.argv[2])):
    if r["benchmark"] == "decode_step" and r["aggregate"] == "median":
        gbps[(r["dtype"], r["threads"], r["context"])] = (r["ws_level"], float(r["gbps"]))
for key, b in brackets.items():
    if not b or key not in gbps:
        continue
    level, g = gbps[key]
    plain = max(x[2] for x in b)
    both = max(max(x[2], x[3]) for x in b)
    won = sum(x[3] > x[2] for x in b)
    line = (f"{key[0]} t={key[1]} ctx={key[2]} {level}: {g:.2f} GB/s; plain loop alone {plain:.2f} -> {100 * g / plain:.1f}%; "
            f"two loops {both:.2f} -> {100 * g / both:.1f}% (window set {won} of {len(b)} brackets)")
    if all(x[4] is not None for x in b):
        three = max(max(x[2], x[3], x[4]) for x in b)
        streams_won = sum(x[4] > max(x[2], x[3]) for x in b)
        line += f"; three loops {three:.2f} -> {100 * g / three:.1f}% (two streams set {streams_won} of {len(b)})"
    if all(x[4] is not None and x[5] is not None for x in b):
        four = max(x[1] for x in b)
        four_won = sum(x[5] > max(x[2], x[3], x[4]) for x in b)
        line += f"; four loops {four:.2f} -> {100 * g / four:.1f}% (four streams set {four_won} of {len(b)})"
    print(line)
