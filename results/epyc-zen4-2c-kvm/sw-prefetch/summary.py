#!/usr/bin/env python3
# summary.py DIR: the hint A/B of run.sh (DIR/<hint>-t<threads>-r<round>.csv): per decode_step
# configuration, each round's % of the run's ceiling under t0, and each round's time under t2 and
# none over t0's (median in brackets) with their % of the ceiling.
import csv, glob, os, re, statistics, sys, collections
t = collections.defaultdict(lambda: collections.defaultdict(dict))
for f in glob.glob(os.path.join(sys.argv[1], '*-t*-r*.csv')):
    m = re.match(r'(\w+)-t(\d+)-r(\d+)\.csv$', os.path.basename(f))
    h, rnd = m.group(1), int(m.group(3))
    for r in csv.DictReader(open(f)):
        if r['aggregate'] != 'median' or r['benchmark'] != 'decode_step':
            continue
        k = (r['dtype'], int(r['threads']), r['ws_level'], int(r['context']))
        t[k][h][rnd] = (float(r['ns_per_step']), float(r['pct_of_ceiling']))
print('dtype threads level context | t0 % of ceiling by round | t2: time / t0 by round [median], % | none: the same')
for k in sorted(t):
    base = t[k]['t0']
    line = '%-22s | %s' % (' '.join(map(str, k)), '/'.join('%.0f' % base[r][1] for r in sorted(base)))
    for h in ('t2', 'none'):
        rs = [t[k][h][r][0] / base[r][0] for r in sorted(base) if r in t[k][h]]
        line += ' | %s [%.2f] %s' % (' '.join('%.2f' % x for x in rs), statistics.median(rs),
                                     '/'.join('%.0f' % t[k][h][r][1] for r in sorted(t[k][h])))
    print(line)
