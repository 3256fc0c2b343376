#!/bin/bash
# The run's FMA ceiling at both ends (main after the ceiling_fma_end change): back-to-back runs of
# Qwen3-0.6B decode_step at a DRAM context, fp32 and bf16, at 1-16 threads with --ceilings all and
# --ceiling-bracket, so each run takes its FMA bursts at its start and again after its rows
# (ceiling_fma, ceiling_fma_end), and every row's core bracket is judged against the faster end.
exec bash "$(dirname "$0")/../../device-loop.sh" fma-ends 420 "$0" -- \
  --model qwen3-0.6b --context 16384 --dtype fp32,bf16 --threads 1,2,4,8,16 --benchmarks decode_step \
  --repetitions 3 --min-time 0.2 --ceilings all --ceiling-bracket --llc 64MiB
