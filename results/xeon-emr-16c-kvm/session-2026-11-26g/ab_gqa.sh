#!/bin/bash
# Session 2026-11-26g: alternating rounds of scratch builds (.carry/bin/kv_*) on the GQA shape
# (8 layers of Qwen3-0.6B, 8 KV heads, G = 1 and 8, 16384 positions, fp32), 1 and 16 threads.
# ROUNDS rounds; best and median ns per step per binary (long-tiles/abkv.py).
tar xJf .carry/pack.tar.xz -C .carry
export LD_LIBRARY_PATH=$PWD/.carry/lib KVBENCH_MODELS_DIR=$PWD/configs/models
cd "$OUT" && python3 "$OLDPWD/results/epyc-zen5-2c-kvm-508m/long-tiles/abkv.py" "${ROUNDS:-3}" \
  "--llc 64MiB --model qwen3-0.6b --layers 8 --q-heads 8,64 --kv-heads 8 --context 16384 --threads ${THREADS:-1,16} --dtype ${DTYPE:-fp32} --benchmarks attention --repetitions 3 --min-time 0.1" \
  "$@" 2>&1 | tee ab.txt
tar cJf ab-csv.tar.xz abkv_*.csv && rm -f abkv_*.csv
