#!/usr/bin/env python3
"""The kernel's own rate against the memory's, per dtype and thread count.

usage: bound_table.py DIR THREADS_ALL
DIR holds run.sh's files: floor-1core*.csv (one pinned kernel_bench floor/ copy), floor-<N>core-pu*.csv
(one copy per PU, all started together) and decode.csv (kvbench run, --ceiling-bracket). For G = 2
(Qwen3-0.6B) it prints, per dtype and thread count: the floor (ns per cached position and KV head,
rows in L2; 1 thread: the two single-copy runs, all threads: median over the copies), the time the
DRAM row's bytes per position take at its bracketed read ceiling's per-worker share, the bound
(overlapped: that memory time over the larger of it and the floor, the most a kernel whose
arithmetic hides entirely under its memory time could reach; serial: memory time over memory
plus floor, a kernel that overlaps nothing) and what the DRAM row measured (median % of its
ceiling).
"""
import csv, glob, os, statistics as st, sys

d, nall = sys.argv[1], int(sys.argv[2])

def floors(path):
    rows = [l for l in open(path) if l.startswith(('name', '"floor'))]
    return {r['name'][:-len('_median')]: float(r['s/pos']) * 1e9
            for r in csv.DictReader(rows) if r['name'].endswith('_median')}

one = [floors(p) for p in sorted(glob.glob(os.path.join(d, 'floor-1core*.csv')))]
many = [floors(p) for p in glob.glob(os.path.join(d, 'floor-%dcore-pu*.csv' % nall))]
rows = [r for r in csv.DictReader(l for l in open(os.path.join(d, 'decode.csv')) if not l.startswith('#'))
        if r['benchmark'] == 'decode_step' and r['ws_level'] == 'DRAM' and r['aggregate'] in ('', 'none')]

print('| dtype | threads | floor ns/pos | memory ns/pos | overlapped | serial | measured |')
print('|---|---|---|---|---|---|---|')
for dtype in ('fp32', 'fp16', 'bf16', 'int8'):
    key = 'floor/%s/G:2/ctx:512' % dtype
    for threads, runs in ((1, one), (nall, many)):
        fl = [r[key] for r in runs]
        xs = [r for r in rows if r['dtype'] == dtype and int(r['threads']) == threads]
        if not xs or not fl:
            continue
        layers, kv, ctx = (int(xs[0][c]) for c in ('layers', 'kv_heads', 'context'))
        per_pos = float(xs[0]['bytes_read']) / (layers * kv * ctx)
        ceil = st.median(float(r['ceiling_gbps']) for r in xs)
        mem = per_pos / (ceil / threads)
        lo, hi = min(fl), max(fl)
        floor_txt = '%.1f-%.1f' % (lo, hi) if threads == 1 else '%.1f (%.1f-%.1f)' % (st.median(fl), lo, hi)
        span = lambda f: '%.0f%%' % f(lo) if threads > 1 or round(f(lo)) == round(f(hi)) else \
            '%.0f-%.0f%%' % (f(hi), f(lo))
        mid = st.median(fl)
        over = lambda f: 100 * mem / max(mem, mid if threads > 1 else f)
        serial = lambda f: 100 * mem / (mem + (mid if threads > 1 else f))
        meas = st.median(float(r['pct_of_ceiling']) for r in xs)
        print('| %s | %d | %s | %.1f | %s | %s | %.0f%% |' % (dtype, threads, floor_txt, mem, span(over), span(serial), meas))
