#!/bin/bash
# Session 2026-11-26e, call 1 (main f1b81d2): does `--llc auto` now decide the same way run after
# run on this host? Four `kvbench topo` (auto), then one `--llc measure` for the curve itself.
tar xJf .carry/pack.tar.xz -C .carry
export LD_LIBRARY_PATH=$PWD/.carry/lib KVBENCH_MODELS_DIR=$PWD/configs/models
o=$OUT/emr; mkdir -p $o
for i in 1 2 3 4; do
  s=$SECONDS
  .carry/bin/kvbench topo > $o/topo-auto-$i.txt 2>&1
  echo "auto $i rc=$? $((SECONDS - s)) s: $(grep -m1 -E "LLC .*(kept|measured)" $o/topo-auto-$i.txt)" | tee -a $o/probe-lines.txt
done
s=$SECONDS
.carry/bin/kvbench topo --llc measure > $o/topo-measure.txt 2>&1
echo "measure rc=$? $((SECONDS - s)) s: $(grep -m1 -E "LLC .*(kept|measured)" $o/topo-measure.txt)" | tee -a $o/probe-lines.txt
grep -A22 "read bandwidth" $o/topo-measure.txt | head -24
