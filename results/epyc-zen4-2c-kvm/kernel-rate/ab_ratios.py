import collections,re,sys
d=collections.defaultdict(dict)
base=sys.argv[2]
for l in open(sys.argv[1]):
    f=l.split(); r,a=f[0],f[1]
    for n,t in re.findall(r'"([^"]+)" ([\d.]+)', l): d[n][(r,a)]=float(t)
for n,v in d.items():
    rs=sorted({r for r,_ in v}); arms=sorted({a for _,a in v if a!=base})
    for a in arms:
        rat=[v[(r,a)]/v[(r,base)] for r in rs if (r,a) in v and (r,base) in v]
        s=sorted(rat); med=(s[len(s)//2]+s[(len(s)-1)//2])/2
        print(n, a+'/'+base, ' '.join('%.2f'%x for x in rat), 'median %.2f'%med, 'faster in %d of %d'%(sum(x<1 for x in rat),len(rat)))
