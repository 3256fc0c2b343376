#!/usr/bin/env bash
# bf16 row-pair score order: clean binaries alternating, decode_step Qwen3-0.6B.
export LD_LIBRARY_PATH=$PWD/.carry/lib
o=$OUT/ab; mkdir -p $o
nproc > $o/info.txt; lscpu | head -20 >> $o/info.txt
for t in 1 16; do
  rounds=5; [ $t = 16 ] && rounds=2
  for r in $(seq 1 $rounds); do
    for b in base new; do
      s=$SECONDS
      .carry/bin/kvbench_$b run --model qwen3-0.6b --context auto --dtype bf16 --threads $t \
        --benchmarks decode_step --repetitions 3 --out $o/${b}_t${t}_$r.csv > $o/${b}_t${t}_$r.log 2>&1
      echo "$b t$t r$r rc=$? $((SECONDS-s)) s" >> $o/info.txt
    done
  done
done
python3 .carry/summ.py $o/*.csv > $OUT/summary.txt 2>&1
tar czf $OUT/ab.tgz -C $OUT ab
cat $OUT/summary.txt
