#!/usr/bin/env python3
# abkv.py ROUNDS "kvbench args" bin1 bin2 ...: interleaved rounds; best median ns_per_step per config
import subprocess, sys, csv, collections, os, shlex
rounds=int(sys.argv[1]); args=shlex.split(sys.argv[2]); bins=sys.argv[3:]
best=collections.defaultdict(dict); allr={}
for i in range(rounds):
    for b in bins:
        out='abkv_%s_%d.csv'%(os.path.basename(b),i)
        if os.path.exists(out): os.remove(out)
        subprocess.run([b,'run']+args+['--ceilings','none','-o',out],capture_output=True,text=True,check=True)
        for r in csv.DictReader(open(out)):
            if r['aggregate']!='median': continue
            key=(r['benchmark'],r['dtype'],r['threads'],r['context'],r['q_heads'],r['ws_level'])
            v=float(r['ns_per_step'])
            best[key][b]=min(best[key].get(b,1e30),v); allr.setdefault(key,{}).setdefault(b,[]).append(v)
print('%-48s'%'config'+''.join('%14s'%os.path.basename(b) for b in bins)+'  ratio vs first')
for k in sorted(best):
    m=[best[k].get(b,float('nan')) for b in bins]
    print('%-48s'%' '.join(k)+''.join('%14.0f'%x for x in m)+'  '+' '.join('%.3f'%(x/m[0]) for x in m[1:]))
import statistics
print('median over rounds:')
for k in sorted(allr):
    m=[statistics.median(allr[k][b]) for b in bins]
    print('%-48s'%' '.join(k)+''.join('%14.0f'%x for x in m)+'  '+' '.join('%.3f'%(x/m[0]) for x in m[1:]))
