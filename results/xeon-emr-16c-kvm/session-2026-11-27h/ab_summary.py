#!/usr/bin/env python3
import csv, glob, os, re, statistics, sys, collections
# ab_summary.py DIR name1 name2 ...: per configuration, the median ns_per_step over the rounds of
# each name (DIR/<name>_<round>.csv, names matched exactly) and each round's time over name1's.
d, bins = sys.argv[1], sys.argv[2:]
t = collections.defaultdict(lambda: collections.defaultdict(dict))
for f in glob.glob(os.path.join(d, '*.csv')):
    m = re.match(r'(.+)_(\d+)\.csv$', os.path.basename(f))
    if not m or m.group(1) not in bins: continue
    b, rnd = m.group(1), int(m.group(2))
    for r in csv.DictReader(open(f)):
        if r['aggregate'] != 'median': continue
        k = (r['benchmark'], r['dtype'], int(r['threads']), r['ws_level'], int(r['context']))
        t[k][b][rnd] = float(r['ns_per_step'])
print('%-34s' % 'config' + ''.join('%11s' % b for b in bins) + '  | per-round time / ' + bins[0] + ' [median]')
for k in sorted(t):
    med = [statistics.median(t[k][b].values()) if t[k][b] else float('nan') for b in bins]
    out = []
    for b in bins[1:]:
        rs = [t[k][b][r] / t[k][bins[0]][r] for r in sorted(t[k][bins[0]]) if r in t[k][b]]
        out.append(' '.join('%.2f' % x for x in rs) + ' [%.2f]' % statistics.median(rs) if rs else '-')
    print('%-34s' % ' '.join(map(str, k)) + ''.join('%11.0f' % m for m in med) + '  | ' + '  | '.join(out))
