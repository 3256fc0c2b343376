#!/usr/bin/env python3
# ab.py ROUNDS FILTER bin1 bin2 ... : interleaved rounds, best (min) time per benchmark per binary
import subprocess, sys, re, collections
rounds=int(sys.argv[1]); filt=sys.argv[2]; bins=sys.argv[3:]
best=collections.defaultdict(dict); allv=collections.defaultdict(lambda: collections.defaultdict(list))
for i in range(rounds):
    for b in bins:
        out=subprocess.run([b,'--benchmark_filter='+filt,'--benchmark_min_time=0.1'],capture_output=True,text=True).stdout
        for line in out.splitlines():
            m=re.match(r'(\S+)\s+([\d.]+) (\w+)\s+([\d.]+) (\w+)',line)
            if not m or '/' not in m.group(1): continue
            t=float(m.group(4)); u=m.group(5)
            t*= {'ns':1e-3,'us':1,'ms':1e3}[u]
            allv[m.group(1)][b].append(t)
names=list(allv)
print('%-40s'%'benchmark'+''.join('%16s'%b.split('/')[-1] for b in bins)+'   ratio(min) vs first')
for n in names:
    mins=[min(allv[n][b]) for b in bins]
    print('%-40s'%n+''.join('%16.3f'%m for m in mins)+'   '+' '.join('%.3f'%(m/mins[0]) for m in mins[1:]))
