#!/bin/bash
# Session 2026-11-26g: alternating rounds of scratch builds (.carry/bin/kv_*) on the one-KV-head
# append (32 layers, 32 q / 1 KV head, head_dim 128, context 4096: two rows per layer) beside
# its memcpy reference, fp32 and int8, 1 and 16 threads. ROUNDS rounds (long-tiles/abkv.py).
tar xJf .carry/pack.tar.xz -C .carry
export LD_LIBRARY_PATH=$PWD/.carry/lib KVBENCH_MODELS_DIR=$PWD/configs/models
cd "$OUT" && python3 "$OLDPWD/results/epyc-zen5-2c-kvm-508m/long-tiles/abkv.py" "${ROUNDS:-5}" \
  "--llc 64MiB --layers 32 --q-heads 32 --kv-heads 1 --head-dim 128 --context 4096 --threads ${THREADS:-1,16} --dtype fp32,int8 --benchmarks append --repetitions 3 --min-time 0.1" \
  "$@" 2>&1 | tee ab-append.txt
tar cJf ab-append-csv.tar.xz abkv_*.csv && rm -f abkv_*.csv
