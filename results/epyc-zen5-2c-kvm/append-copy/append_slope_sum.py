#!/usr/bin/env python3
"""append_slope_sum.py OUTDIR: per dtype and context, the median over rounds of each file's median
ns per step at 1, 8 and 32 layers, and the slope from 8 to 32 layers (ns per layer), for append and
append_memcpy (the files of append-slope.sh)."""
import collections
import csv
import glob
import os
import statistics
import sys

steps = collections.defaultdict(list)
for path in glob.glob(os.path.join(sys.argv[1], 'r*-L*-c*.csv')):
    _, layers, ctx = os.path.basename(path)[:-4].split('-')
    for row in csv.DictReader(open(path)):
        if row['aggregate'] == 'median':
            steps[(row['benchmark'], row['dtype'], int(ctx[1:]), int(layers[1:]))].append(float(row['ns_per_step']))
print('| context | dtype | append 1 / 8 / 32 layers (ns) | per layer | memcpy 1 / 8 / 32 layers (ns) | per layer |')
print('|---|---|---|---|---|---|')
for ctx in sorted({k[2] for k in steps}):
    for dtype in ('fp32', 'fp16', 'bf16', 'int8'):
        cells = []
        for bench in ('append', 'append_memcpy'):
            m = {n: statistics.median(steps[(bench, dtype, ctx, n)]) for n in (1, 8, 32)}
            cells += [' / '.join(f'{m[n]:.0f}' for n in (1, 8, 32)), f'{(m[32] - m[8]) / 24:.1f}']
        print(f'| {ctx} | {dtype} | ' + ' | '.join(cells) + ' |')
