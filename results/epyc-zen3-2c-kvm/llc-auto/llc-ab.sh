#!/bin/bash
# Auto's LLC decision: the new rule (kvbench) against main c08f8dd's (kvbench-before), alternating.
# Carried to the device as .carry/pack.tar.xz (bin/kvbench, bin/kvbench-before, lib/), run from the repository root with OUT set.
mkdir -p /tmp/kvb && tar xJf .carry/pack.tar.xz -C /tmp/kvb; P=/tmp/kvb/pack
export LD_LIBRARY_PATH=$P/lib
cd $OUT
lscpu | grep -E "Model name|^CPU\(s\)|L3" > lscpu.txt
date -u +%FT%TZ > start.txt
for i in $(seq 1 ${ROUNDS:-8}); do
  for b in ${ORDER:-kvbench-before kvbench}; do
    s=$(date +%s%N)
    $P/bin/$b topo > topo-$b-$i.txt 2>&1
    e=$(date +%s%N)
    printf "%s round %d %d ms: %s\n" $b $i $(( (e - s) / 1000000 )) "$(head -1 topo-$b-$i.txt)" >> decisions.txt
  done
done
date -u +%FT%TZ > end.txt
cat lscpu.txt decisions.txt
