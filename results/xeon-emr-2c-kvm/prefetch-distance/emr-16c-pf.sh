#!/usr/bin/env bash
# Prefetch distance 4 KB (main) against 2 KB: clean binaries of dbd082a, alternating, 1 thread.
export LD_LIBRARY_PATH=$PWD/.carry/lib
o=$OUT/pf; mkdir -p $o
for r in 1 2 3; do
  for b in 4096 2048; do
    s=$SECONDS
    .carry/bin/kvbench_$b run --model qwen3-0.6b --context auto --dtype fp32,fp16,bf16,int8 --threads 1 \
      --benchmarks decode_step --repetitions 3 --out $o/pf_${b}_$r.csv > /dev/null 2>&1
    echo "$b r$r rc=$? $((SECONDS-s)) s" >> $OUT/info.txt
  done
done
(cd $o && python3 $OLDPWD/.carry/ab_table.py pf 4096 2048) > $OUT/table.txt 2>&1
tar czf $OUT/pf.tgz -C $OUT pf && rm -rf $o
cat $OUT/info.txt $OUT/table.txt
