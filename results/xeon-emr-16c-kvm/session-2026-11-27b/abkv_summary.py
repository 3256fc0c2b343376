#!/usr/bin/env python3
# abkv_summary.py DIR bin1 bin2 ...: median ns_per_step of each configuration per binary and
# round (DIR/<bin>_<round>.csv), then per configuration the median over rounds and each binary's
# time over the first's, round by round.
import csv, glob, os, statistics, sys
d, bins = sys.argv[1], sys.argv[2:]
t = {}  # (config) -> bin -> round -> ns
for b in bins:
    for f in glob.glob(os.path.join(d, b + '_*.csv')):
        stem, _, rnd = os.path.basename(f)[:-4].rpartition('_')
        if stem != b or not rnd.isdigit():  # b + '_*' also matches b_8k_1.csv
            continue
        rnd = int(rnd)
        for r in csv.DictReader(open(f)):
            if r['aggregate'] != 'median':
                continue
            k = (r['benchmark'], r['dtype'], r['threads'], r['context'], r['q_heads'], r['ws_level'])
            t.setdefault(k, {}).setdefault(b, {})[rnd] = float(r['ns_per_step'])
print('%-40s' % 'config' + ''.join('%12s' % b for b in bins) + '   per-round ratios vs ' + bins[0])
for k in sorted(t):
    med = [statistics.median(t[k][b].values()) if b in t[k] else float('nan') for b in bins]
    rounds = sorted(t[k].get(bins[0], {}))
    ratios = ['/'.join('%.2f' % (t[k][b][r] / t[k][bins[0]][r]) for r in rounds if r in t[k].get(b, {}))
              for b in bins[1:]]
    print('%-40s' % ' '.join(k) + ''.join('%12.0f' % m for m in med) + '   ' + '  '.join(ratios))
