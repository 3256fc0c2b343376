#!/bin/bash
# usage: pfab.sh ROUNDS configs...   config = NEAR:FAR (0 = unset)
R=$1; shift
F=${FILTER:-'^fast/(int8|fp16|bf16)/ctx:16384|fast_group/fp32/ctx:16384/G:8'}
for r in $(seq 1 $R); do
  for c in "$@"; do
    n=${c%%:*}; f=${c##*:}
    env $( [ $n != 0 ] && echo KVB_NEAR=$n ) $( [ $f != 0 ] && echo KVB_FAR=$f ) \
      build/benchmarks/kernel_bench ${HINT:+--sw-prefetch=$HINT} --benchmark_filter="$F" --benchmark_min_time=0.3 2>&1 | grep -E "^fast" |
      sed -E "s/^(\S+).*s\/pos=([0-9.]+)ns.*/$r $c \1 \2/"
  done
done
