import csv, glob, collections, statistics, sys, re
# per round, per configuration: append and append_memcpy medians under each KVB_SLOT_PF mode
d=collections.defaultdict(dict)  # (dtype,ctx,state,bench) -> {(round,mode): us}
for f in glob.glob(sys.argv[1]+'/r*-m*.csv'):
    m=re.search(r'r(\d+)-m(\d)', f); rnd, mode = m.group(1), m.group(2)
    for r in csv.DictReader(open(f)):
        if r['aggregate']=='median':
            d[(r['dtype'],r['context'],r['cache_state'],r['benchmark'])][(rnd,mode)]=float(r['ns_per_step'])/1000
new=sys.argv[2] if len(sys.argv)>2 else '2'
print(f"dtype ctx state | append us: none / slot prefetch (medians) | per-round ratio new/none: median [min-max], rounds faster | append/memcpy same run: none / new")
for k in sorted(set(x[:3] for x in d)):
    a=d[k+('append',)]; c=d[k+('append_memcpy',)]
    rounds=sorted(set(r for r,_ in a))
    rat=[a[(r,new)]/a[(r,'0')] for r in rounds if (r,new) in a and (r,'0') in a]
    am0=statistics.median(a[(r,'0')] for r in rounds); am2=statistics.median(a[(r,new)] for r in rounds)
    r0=statistics.median(a[(r,'0')]/c[(r,'0')] for r in rounds); r2=statistics.median(a[(r,new)]/c[(r,new)] for r in rounds)
    print(f"{k[0]:5s} {k[1]:>5s} {k[2]:5s} | {am0:6.2f} / {am2:6.2f} | {statistics.median(rat):.2f} [{min(rat):.2f}-{max(rat):.2f}] {sum(x<1 for x in rat)}/{len(rat)} | {r0:.2f} / {r2:.2f}")
