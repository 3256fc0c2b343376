#!/bin/bash
# bf16 encoding with the CPU's conversion (KVBENCH_BF16_NATIVE=1, the default where AVX512_BF16
# exists) against Highway's integer rounding (=0): the encoder tests first, then ROUNDS
# alternating rounds of `kvbench run ARGS` per setting, each run to its own CSV, all returned as
# $OUT/bf16ab.tar.xz.
tar xJf .carry/pack.tar.xz -C .carry
export LD_LIBRARY_PATH=$PWD/.carry/lib KVBENCH_MODELS_DIR=$PWD/configs/models
out="$OUT/bf16ab"; mkdir -p "$out"
grep -o -w -m1 "avx512_bf16" /proc/cpuinfo > "$out/cpu_flags.txt"
.carry/bin/kernels_test --gtest_filter='Bf16Native*:CacheWriteEncoding*:Bf16Codec*' > "$out/tests.txt" 2>&1; echo "kernels_test rc $?" | tee -a "$out/tests.txt"
end=$((SECONDS + ${BUDGET:-400}))
for round in $(seq 1 "${ROUNDS:-3}"); do
  for n in 0 1; do
    [ $SECONDS -ge $end ] && break 2
    KVBENCH_BF16_NATIVE=$n timeout $((end - SECONDS)) .carry/bin/kv_cur run $ARGS -o "$out/native${n}_$round.csv" \
      > /dev/null 2> "$out/native${n}_$round.err" || echo "native=$n round $round: rc $?"
  done
done
tar cJf "$OUT/bf16ab.tar.xz" -C "$OUT" bf16ab && tail -3 "$out/tests.txt"
