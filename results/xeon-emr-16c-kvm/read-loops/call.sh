#!/bin/bash
# The read ceiling's two loops on the lent Xeon, one device call: lscpu; `kvbench ceilings` at 1,
# 2, 4, 8 and 16 threads, twice round; the default sweep (bracketed) at 1 and 16 threads.
source results/device-env.sh
K=/tmp/pk/bin/kvbench
lscpu > $OUT/lscpu.txt
date -u +%FT%TZ > $OUT/start.txt
for round in 1 2; do
  for t in 1 2 4 8 16; do
    timeout 90 $K ceilings --threads $t > $OUT/ceilings-r$round-t$t.txt 2>&1
  done
done
date -u +%FT%TZ >> $OUT/start.txt
timeout 330 $K run --threads 1,16 --out $OUT/default-1-16.csv > $OUT/default-1-16.log 2>&1
echo "run rc $?" >> $OUT/start.txt
date -u +%FT%TZ >> $OUT/start.txt
grep -h "ceiling_read" $OUT/ceilings-r*-t*.txt | head -40
tail -30 $OUT/default-1-16.log
cd $OUT && tar cJf /tmp/call.tar.xz . && rm -f ./* && mv /tmp/call.tar.xz $OUT/
