#!/usr/bin/env python3
"""table.py FOLDER [--ref REF] [BUILD ...]: for CSVs FOLDER/<build>-<round>.csv[.xz] of `kvbench
run --benchmark append` (aggregate=median rows), per append row and build: the median over rounds
of its time over the same run's append_memcpy and, with --ref, of its time over build REF's in the
same round (rounds ran the builds back to back, so the machine's drift cancels in that ratio).
Builds in the order given, else sorted."""
import csv, glob, lzma, os, statistics, sys
from collections import defaultdict

args = sys.argv[1:]
folder = args.pop(0)
ref = None
if args[:1] == ['--ref']:
    ref = args[1]
    args = args[2:]
times = defaultdict(dict)   # (build, config) -> {round: ns}
ratios = defaultdict(list)  # (build, config) -> [append / memcpy]
for path in glob.glob(os.path.join(folder, '*.csv*')):
    build, rnd = os.path.basename(path).split('.csv')[0].rsplit('-', 1)
    t = {}
    with (lzma.open(path, 'rt') if path.endswith('.xz') else open(path)) as text:
        for r in csv.DictReader(text):
            if r['aggregate'] == 'median':
                t[(r['benchmark'], r['dtype'], r['kv_heads'], r['context'], r['cache_state'])] = float(r['ns_per_step'])
    for k, v in t.items():
        if k[0] in ('append', 'append_streaming'):
            times[(build, k)][rnd] = v
            ratios[(build, k)].append(v / t[('append_memcpy',) + k[1:]])
builds = args or sorted({b for b, _ in times})
configs = sorted({k for _, k in times})


def cell(values):
    return '%.2f' % statistics.median(values) if values else '-'


tables = [('append / append_memcpy', lambda b, c: ratios.get((b, c), []))]
if ref:
    tables.append((f'time over {ref} in the same round',
                   lambda b, c: [ns / times[(ref, c)][r] for r, ns in times.get((b, c), {}).items()
                                 if r in times.get((ref, c), {})]))
for title, values in tables:
    print(f'| {title} | ' + ' | '.join(builds) + ' |')
    print('|---' * (len(builds) + 1) + '|')
    for c in configs:
        print(f"| {' '.join(c)} | " + ' | '.join(cell(values(b, c)) for b in builds) + ' |')
    print()
