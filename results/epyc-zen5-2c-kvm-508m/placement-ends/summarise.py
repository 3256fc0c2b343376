#!/usr/bin/env python3
"""One line per run (kvbench run CSVs, .csv or .csv.xz, in run order): at each thread count of 2 or
more, the per-layer barrier's crossing at the run's start and end (ceiling_barrier ->
ceiling_barrier_end, ns; "MOVED" where they lie more than 2x apart, the threshold kvbench compare
and report use), then each decode_step configuration's median repetition with its fastest and
slowest (us). Usage: summarise.py RUNS_FOLDER"""
import csv, glob, lzma, os, statistics, sys

def rows_of(path):
    with (lzma.open if path.endswith('.xz') else open)(path, 'rt') as f:
        return list(csv.DictReader(f))

for path in sorted(glob.glob(os.path.join(sys.argv[1], '*.csv*'))):
    rows = rows_of(path)
    start, end, reps = {}, {}, {}
    for r in rows:
        if r['benchmark'] == 'ceiling_barrier':
            start[int(r['threads'])] = float(r['ns_per_step'])
        elif r['benchmark'] == 'ceiling_barrier_end':
            end[int(r['threads'])] = float(r['ns_per_step'])
        elif r['benchmark'] == 'decode_step' and r['aggregate'] == 'none':
            key = (int(r['threads']), int(r['context']))
            reps.setdefault(key, []).append(float(r['ns_per_step']) / 1e3)
    cells = []
    for t in sorted(x for x in start if x >= 2):
        s, e = start[t], end.get(t)
        moved = e is not None and max(s, e) / min(s, e) > 2
        cells.append(f'{t}T {s:.0f}->{e:.0f}' + (' MOVED' if moved else '') if e else f'{t}T {s:.0f}->-')
    for (t, ctx), v in sorted(reps.items()):
        cells.append(f'{t}T ctx {ctx}: {statistics.median(v):.0f} ({min(v):.0f}-{max(v):.0f})')
    print(os.path.basename(path).split('.')[0] + ' | ' + ' | '.join(cells))
