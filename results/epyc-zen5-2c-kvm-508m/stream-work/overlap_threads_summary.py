# Summarises kernel_bench overlap_threads/ rounds (JSON files, .json.xz too): GB/s per (fma, threads, pf),
# and each row over the bare loop (fma:0/pf:0) of the same round and thread count.
#   python3 overlap_threads_summary.py overlap-threads-*.json
import json,collections,lzma,re,sys,statistics as st
d=collections.defaultdict(list)
for f in sys.argv[1:]:
  for b in json.load(lzma.open(f) if f.endswith('.xz') else open(f))['benchmarks']:
    if b.get('aggregate_name')!='median': continue
    m=re.match(r'overlap_threads/fma:(\d+)/threads:(\d+)/pf:(\d+)',b['name'])
    g=b['GB/s']; d[tuple(map(int,m.groups()))].append(g/1e9 if g>1e6 else g)
for t in sorted({k[1] for k in d}):
  base=d[(0,t,0)]
  for k in sorted(k for k in d if k[1]==t):
    v=d[k]; r=[x/y for x,y in zip(v,base)]
    print('threads %2d fma %d pf %4d  GB/s %s  / bare %s (median %.2f)'%(t,k[0],k[2],' '.join('%6.1f'%x for x in v),' '.join('%.2f'%x for x in r),st.median(r)))