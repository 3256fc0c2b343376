#!/bin/bash
cd "$(dirname "$0")/.."
export LD_LIBRARY_PATH=$PWD/lib KVBENCH_MODELS_DIR=$PWD/../configs/models
B=$PWD/bin; O=${OUT:-/tmp/out}; mkdir -p $O; cd $O
python3 $B/abkv.py 5 "--model qwen3-0.6b --context 512,4682 --dtype fp32,fp16,bf16,int8 --threads 1,8 --benchmarks decode_step --repetitions 3 --min-time 0.05" $B/kv_base $B/kv_new > $O/decode_step2.txt 2>&1
rm -f $O/abkv_*.csv
