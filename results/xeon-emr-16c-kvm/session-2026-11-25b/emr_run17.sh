#!/bin/bash
# Session 2026-11-25 (eighth), third call: bf16 encoding with AVX512-BF16 (VCVTNE2PS2BF16, "nbf")
# against main f206959 ("base"), append (+ append_memcpy) and prefill_copy, Qwen3-0.6B at 4096
# tokens and 32 layers x 1 KV head, bf16 and fp16 (control), 1 thread, alternating, 3 rounds.
export LD_LIBRARY_PATH=$PWD/.carry/lib
mkdir -p $OUT/ab
log() { echo "# $(date -u +%FT%TZ) $*" | tee -a $OUT/ab/commands.txt; }
for r in 1 2 3; do
  for b in base nbf; do
    bin=.carry/bin/kvbench; [ $b = nbf ] && bin=.carry/nbf/kvbench
    log "round $r $b: $bin"
    $bin run --model qwen3-0.6b --context 4096 --dtype bf16,fp16 --threads 1 --benchmarks append,prefill_copy --ceilings none --repetitions 3 --out $OUT/ab/q-$b-r$r.csv >/dev/null 2>&1; echo "  -> exit $?" | tee -a $OUT/ab/commands.txt
    $bin run --model custom --layers 32 --q-heads 32 --kv-heads 1 --head-dim 128 --context 4096 --dtype bf16,fp16 --threads 1 --benchmarks append --ceilings none --repetitions 3 --out $OUT/ab/q1-$b-r$r.csv >/dev/null 2>&1; echo "  -> exit $?" | tee -a $OUT/ab/commands.txt
  done
done
