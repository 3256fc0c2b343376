#!/usr/bin/env python3
"""Summarise floor rounds written by run.sh ("round arm benchmark time" lines): per benchmark, each
arm's best time over all rounds, best over base's best, and each round's ratio of the arms' bests.
Usage: floor_summary.py floor.txt"""
import collections,sys
m=collections.defaultdict(lambda: float('inf'))
for l in open(sys.argv[1]):
    r,a,n,t=l.split()[:4]; m[(int(r),a,n)]=min(m[(int(r),a,n)],float(t))
names=sorted({k[2] for k in m}); rounds=sorted({k[0] for k in m})
arms=sorted({k[1] for k in m}); base='base'; new=[a for a in arms if a!='base']
for n in names:
    for a in new:
        b=[m[(r,base,n)] for r in rounds]; w=[m[(r,a,n)] for r in rounds]
        print(f"{n:28s} base {min(b):8.2f} {a} {min(w):8.2f} best/best {min(w)/min(b):.3f} rounds "+' '.join(f"{x/y:.2f}" for x,y in zip(w,b)))
