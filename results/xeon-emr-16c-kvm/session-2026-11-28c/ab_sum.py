#!/usr/bin/env python3
"""ab_sum.py DIR: per dtype and thread count, median decode_step time of arm on over arm off per
round (the files decode-ab.sh writes), and the median of those ratios."""
import csv, glob, os, re, statistics, sys
from collections import defaultdict
t = defaultdict(dict)
for f in glob.glob(os.path.join(sys.argv[1], 'r*_*.csv')):
    m = re.match(r'r(\d+)_(on|off)_', os.path.basename(f))
    for r in csv.DictReader(open(f)):
        if r['benchmark'] == 'decode_step' and r['aggregate'] == 'median':
            t[(r['dtype'], int(r['threads']), int(m.group(1)))][m.group(2)] = float(r['ns_per_step'])
rows = defaultdict(list)
for (dtype, threads, rnd), arms in sorted(t.items()):
    if 'on' in arms and 'off' in arms:
        rows[(dtype, threads)].append(arms['on'] / arms['off'])
for (dtype, threads), v in sorted(rows.items()):
    print('%s %2dT on/off: %s  median %.3f, on faster in %d of %d' % (
        dtype, threads, ' '.join('%.2f' % x for x in v), statistics.median(v),
        sum(x < 1 for x in v), len(v)))
