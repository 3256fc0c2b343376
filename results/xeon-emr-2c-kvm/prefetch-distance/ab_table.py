# ab_table.py PREFIX VARIANT...: decode_step medians per (dtype, threads, level) across rounds
import csv,glob,sys,statistics as st
pre=sys.argv[1]; vs=sys.argv[2:]
data={}
for v in vs:
    for f in sorted(glob.glob(f'{pre}_{v}_*.csv')):
        for r in csv.DictReader(open(f)):
            if r['benchmark']=='decode_step' and r['aggregate']=='median' and r['ws_level'] in ('L3','DRAM'):
                k=(r['dtype'],r['threads'],r['ws_level'])
                data.setdefault(k,{}).setdefault(v,[]).append((float(r['gbps']),float(r['pct_of_ceiling'])))
for k in sorted(data):
    print(*k, ' | '.join(f"{v}: "+' '.join(f"{g:.1f}" for g,_ in data[k][v])+f" med {st.median(g for g,_ in data[k][v]):.1f} ({st.median(p for _,p in data[k][v]):.0f}%)" for v in vs if v in data[k]))
