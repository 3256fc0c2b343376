#!/usr/bin/env python3
"""table.py FOLDER [BUILD ...]: for CSVs FOLDER/<build>-<round>.csv[.xz] of `kvbench run --benchmark
append`, the median over rounds of each append row's ns per step (aggregate=median rows) and of its
time over the same run's append_memcpy, one column per build (in the order given, else sorted)."""
import csv, glob, io, lzma, os, statistics, sys
from collections import defaultdict

folder, order = sys.argv[1], sys.argv[2:]
times, ratios = defaultdict(list), defaultdict(list)
for path in glob.glob(os.path.join(folder, '*.csv*')):
    build = os.path.basename(path).split('.csv')[0].rsplit('-', 1)[0]
    text = lzma.open(path, 'rt') if path.endswith('.xz') else open(path)
    t = {}
    for r in csv.DictReader(text):
        if r['aggregate'] == 'median':
            t[(r['benchmark'], r['dtype'], r['kv_heads'], r['context'], r['cache_state'])] = float(r['ns_per_step'])
    for k, v in t.items():
        if k[0] in ('append', 'append_streaming'):
            times[(build,) + k].append(v)
            ratios[(build,) + k].append(v / t[('append_memcpy',) + k[1:]])
builds = order or sorted({k[0] for k in times})
configs = sorted({k[1:] for k in times})
for title, data, fmt in (('ns per step', times, '%.0f'), ('append / append_memcpy', ratios, '%.2f')):
    print(f'| {title} | ' + ' | '.join(builds) + ' |')
    print('|---' * (len(builds) + 1) + '|')
    for c in configs:
        cells = [fmt % statistics.median(data[(b,) + c]) if data.get((b,) + c) else '-' for b in builds]
        print(f"| {' '.join(c)} | " + ' | '.join(cells) + ' |')
    print()
