#!/usr/bin/env python3
"""Tables of an append-fresh study from its kvbench CSVs (median rows).

1. Per (layout, dtype, threads, context): append / append_memcpy time, warm and fresh, and the
   fresh append's time over the warm one's, one value per run (each run pairs its own rows).
2. The fresh append's median time by layout (runs pooled: across runs, same machine and build).
3. Where the runs hold append_streaming rows (../../*/append-streaming/): per (layout, dtype,
   threads, context, state), append_streaming / append_memcpy and append_streaming / append,
   one value per run.
Usage: tables.py CSV...   (.csv or .csv.xz)
"""
import collections, csv, io, lzma, statistics, sys


def rows(path):
    opener = lzma.open if path.endswith(".xz") else open
    with opener(path, "rt") as f:
        yield from csv.DictReader(io.StringIO(f.read()))


ns = collections.defaultdict(list)  # (layout, dtype, T, ctx, state, bench, run) -> [ns]
level = {}
state_level = {}  # (layout, dtype, T, ctx, state) -> ws_level
for path in sys.argv[1:]:
    for r in rows(path):
        if r["aggregate"] != "median" or r["benchmark"] not in ("append", "append_memcpy", "append_streaming"):
            continue
        k = (r["layout"], r["dtype"], int(r["threads"]), int(r["context"]))
        ns[k + (r["cache_state"], r["benchmark"], r["run_id"])].append(float(r["ns_per_step"]))
        if r["cache_state"] == "fresh":
            level[k] = r["ws_level"]
        state_level[k + (r["cache_state"],)] = r["ws_level"]
runs = sorted({k[6] for k in ns})
fmt = lambda v: " ".join(f"{x:.2f}" for x in v) or "-"
print("| layout | dtype | threads | context | fresh slots in | warm append/memcpy | fresh append/memcpy | fresh/warm append |")
print("|---|---|---|---|---|---|---|---|")
for k in sorted(level):
    w, f, fw = [], [], []
    for run in runs:
        g = lambda s, b: ns.get(k + (s, b, run), [None])[0]
        wa, wm, fa, fm = g("warm", "append"), g("warm", "append_memcpy"), g("fresh", "append"), g("fresh", "append_memcpy")
        if None in (wa, wm, fa, fm):
            continue
        w.append(wa / wm); f.append(fa / fm); fw.append(fa / wa)
    if w:
        print(f"| {k[0]} | {k[1]} | {k[2]} | {k[3]} | {level[k]} | {fmt(w)} | {fmt(f)} | {fmt(fw)} |")

print()
print("| dtype | threads | context | fresh slots in | fresh append us, head_major | position_major | ratio |")
print("|---|---|---|---|---|---|---|")
pooled = collections.defaultdict(list)
for k, v in ns.items():
    if k[4] == "fresh" and k[5] == "append":
        pooled[k[:4]] += v
for dt, t, ctx in sorted({(k[1], k[2], k[3]) for k in level}):
    h, p = pooled.get(("head_major", dt, t, ctx)), pooled.get(("position_major", dt, t, ctx))
    if h and p:
        mh, mp = statistics.median(h), statistics.median(p)
        print(f"| {dt} | {t} | {ctx} | {level[('head_major', dt, t, ctx)]} | {mh / 1e3:.1f} | {mp / 1e3:.1f} | {mp / mh:.2f} |")

streaming = sorted({k[:5] for k in ns if k[5] == "append_streaming"})
if streaming:
    print()
    print("| layout | dtype | threads | context | state | slots in | append/memcpy | streaming/memcpy | streaming/append |")
    print("|---|---|---|---|---|---|---|---|---|")
    for k in streaming:
        am, sm, sa = [], [], []
        for run in runs:
            g = lambda b: ns.get(k + (b, run), [None])[0]
            a, m, st = g("append"), g("append_memcpy"), g("append_streaming")
            if None in (a, m, st):
                continue
            am.append(a / m); sm.append(st / m); sa.append(st / a)
        print(f"| {k[0]} | {k[1]} | {k[2]} | {k[3]} | {k[4]} | {state_level[k]} | {fmt(am)} | {fmt(sm)} | {fmt(sa)} |")
