#!/bin/bash
# fp32 decode_step targets rows, old (bdfc435) and new (7f949af) kernels alternating, 2 runs each.
cd "$(dirname "$0")/.."
export LD_LIBRARY_PATH=$PWD/lib KVBENCH_MODELS_DIR=$PWD/../configs/models
B=$PWD/bin; O=${OUT:-/tmp/out}; mkdir -p $O
for i in 1 2; do for b in base f32; do
  s=$(date +%s)
  $B/kv_$b run --model qwen3-0.6b --context auto --dtype fp32 --threads 1,8 --benchmarks decode_step \
    --repetitions 5 --min-time 0.1 --ceiling-bracket --out $O/targets-fp32-$b-$i.csv > $O/log-$b-$i.txt 2>&1
  echo "kv_$b run $i: rc $? $(( $(date +%s) - s )) s" >> $O/commands.txt
done; done
