import collections,statistics,sys
d=collections.defaultdict(list)
for l in open(sys.argv[1]):
    r,c,b,v=l.split(); d[(b,c)].append(float(v))
bs=sorted(set(b for b,c in d)); cs=[]
for b,c in d:
    if c not in cs: cs.append(c)
for b in bs:
    base=statistics.median(d[(b,cs[0])])
    print(b, ' '.join(f"{c}={statistics.median(d[(b,c)])/base:.3f}" for c in cs), f"base {base:.1f}ns")
