# window / plain of each ceiling_read level in kvbench ceilings outputs (files named ceilings-r<R>-t<T>.txt)
import re, sys, glob, collections
ratios=collections.defaultdict(list)
for f in sorted(glob.glob(sys.argv[1] + '/ceilings-r*-t*.txt')):
    t=int(re.search(r'-t(\d+)', f).group(1))
    for line in open(f):
        m=re.match(r'ceiling_read\s+(\S+)\s+\d+\s+[\d.]+\s+[\d.]+ plain loop ([\d.]+), T[02] window ([\d.]+)', line)
        if m: ratios[(m.group(1), t)].append(float(m.group(3))/float(m.group(2)))
levels=['L1','L2','L3','DRAM']; threads=sorted({t for _,t in ratios})
print('| level | ' + ' | '.join(f'{t} thread' + ('s' if t>1 else '') for t in threads) + ' |')
print('|---' * (len(threads)+1) + '|')
for l in levels:
    print(f'| {l} | ' + ' | '.join(', '.join(f'{r:.3f}' for r in ratios[(l,t)]) for t in threads) + ' |')
