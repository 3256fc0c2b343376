#!/bin/bash
# Device A/B: short tiles (base) against long tiles (new) on the EMR host.
cd "$(dirname "$0")/.."
export LD_LIBRARY_PATH=$PWD/lib
B=$PWD/bin
O=${OUT:-/tmp/out}
mkdir -p $O
(nproc; lscpu | head -20) > $O/machine.txt
cd $O
python3 $B/ab.py 3 'floor/(fp32|fp16|bf16|int8)/G:[12]/' $B/kb_base $B/kb_new > $O/floor.txt 2>&1
python3 $B/abkv.py 3 "--model qwen3-0.6b --context 512,4682 --dtype fp32,fp16,bf16,int8 --threads 1,16 --benchmarks decode_step --repetitions 3 --min-time 0.05" $B/kv_base $B/kv_new > $O/decode_step.txt 2>&1
rm -f $O/abkv_*.csv
