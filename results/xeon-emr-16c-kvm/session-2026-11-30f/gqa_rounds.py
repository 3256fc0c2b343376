#!/usr/bin/env python3
"""Per round of gqa-rounds.sh: time of attention at G = 8 over G = 1 (median rows), with each
row's bracketing DRAM read ceilings, then the rounds' median and range.
Usage: gqa_rounds.py DIR (holding gqa-r<round>.csv)."""
import csv, glob, os, re, statistics, sys

def rows(path):
    with open(path) as f:
        lines = [l for l in f if not l.startswith('#')]
    return list(csv.DictReader(lines))

ratios = []
files = sorted(glob.glob(os.path.join(sys.argv[1], 'gqa-r*.csv')),
               key=lambda p: int(re.search(r'gqa-r(\d+)\.csv$', p).group(1)))
print('round threads G1_ms G8_ms G8/G1 G1_bracket_GBps G8_bracket_GBps G8_barrier_wait_pct')
for path in files:
    med = {}
    for r in rows(path):
        if r['benchmark'] == 'attention' and r['aggregate'] == 'median':
            g = int(r['q_heads']) // int(r['kv_heads'])
            med[g] = r
    if 1 not in med or 8 not in med:
        continue
    t1, t8 = float(med[1]['ns_per_step']), float(med[8]['ns_per_step'])
    br = lambda r: '%.0f/%.0f' % (float(r['ceiling_before_gbps']), float(r['ceiling_after_gbps']))
    ratios.append(t8 / t1)
    rnd = re.search(r'gqa-r(\d+)\.csv$', path).group(1)
    print(rnd, med[1]['threads'], '%.2f' % (t1 / 1e6), '%.2f' % (t8 / 1e6), '%.3f' % (t8 / t1),
          br(med[1]), br(med[8]), '%.1f' % float(med[8]['barrier_wait_pct'] or 'nan'))
if ratios:
    print('rounds %d: G8/G1 median %.3f, range %.3f-%.3f, %d of %d at or below 1.10'
          % (len(ratios), statistics.median(ratios), min(ratios), max(ratios),
             sum(x <= 1.10 for x in ratios), len(ratios)))
