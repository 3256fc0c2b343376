import csv, glob, re, statistics, sys, collections
# kernel_bench append_vs_memcpy (fresh positions): per round, append_us and memcpy_us medians, mode 0 vs 2
d=collections.defaultdict(dict)
for f in glob.glob(sys.argv[1]+'/r*-m*.csv'):
    m=re.search(r'r(\d+)-m(\d)', f); rnd, mode = m.group(1), m.group(2)
    for r in csv.DictReader(open(f)):
        if r['name'].endswith('_median'):
            dt=r['name'].split('/')[1]
            d[dt][(rnd,mode)]=(float(r['append_us']), float(r['memcpy_us']))
print("dtype | append us none / PREFETCHW | per-round time ratio: median [range], rounds faster | append/memcpy same run: none / PREFETCHW")
for dt in ['fp32','fp16','bf16','int8']:
    x=d[dt]; rounds=sorted(set(r for r,_ in x))
    rat=[x[(r,'2')][0]/x[(r,'0')][0] for r in rounds]
    a0=statistics.median(x[(r,'0')][0] for r in rounds); a2=statistics.median(x[(r,'2')][0] for r in rounds)
    q0=statistics.median(x[(r,'0')][0]/x[(r,'0')][1] for r in rounds); q2=statistics.median(x[(r,'2')][0]/x[(r,'2')][1] for r in rounds)
    print(f"{dt} | {a0:.2f} / {a2:.2f} | {statistics.median(rat):.2f} [{min(rat):.2f}-{max(rat):.2f}] {sum(v<1 for v in rat)}/{len(rat)} | {q0:.2f} / {q2:.2f}")
