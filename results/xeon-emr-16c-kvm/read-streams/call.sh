#!/bin/bash
# One device call, two rounds: kvbench ceilings at 1 and 16 threads, then kernel_bench's
# read_streams/ rows (1, 2 and 4 streams per core, with and without the kernels' window) at 1-16
# threads, 4 repetitions in random interleaving; then decode_step fp32 and fp16 from DRAM at 1
# thread (Qwen3-0.6B, 16384 positions, bracketed) for the kernels' own rate beside them.
mkdir -p /tmp/pk && tar xJf .carry/pack.tar.xz -C /tmp/pk
export LD_LIBRARY_PATH=/tmp/pk/lib KVBENCH_MODELS_DIR=$PWD/configs/models
kb=/tmp/pk/bin/kvbench
lscpu > $OUT/lscpu.txt; grep -E '^(Model name|Model|L3 cache):' $OUT/lscpu.txt
end=$(( $(date +%s) + ${BUDGET:-480} ))
for r in 1 2; do
  date -u +%FT%TZ
  $kb ceilings --threads 1 --llc 64MiB > $OUT/ceilings-r$r-t1.txt 2>&1
  $kb ceilings --threads 16 --llc 64MiB > $OUT/ceilings-r$r-t16.txt 2>&1
  left=$(( end - $(date +%s) - 60 ))
  [ $left -gt 30 ] || break
  timeout $left /tmp/pk/bin/kernel_bench --benchmark_filter='^read_streams' --benchmark_repetitions=4 \
    --benchmark_enable_random_interleaving=true --benchmark_min_time=0.2 --benchmark_out=$OUT/streams-r$r.json > $OUT/streams-r$r.txt 2>&1
  echo "streams r$r rc $?"
done
date -u +%FT%TZ
left=$(( end - $(date +%s) ))
[ $left -gt 20 ] && timeout $left $kb run --llc 64MiB --model qwen3-0.6b --context 16384 --threads 1 --dtype fp32,fp16 \
  --benchmarks decode_step --ceiling-bracket --out $OUT/decode-1t.csv > $OUT/decode-1t.log 2>&1
echo "decode rc $?"; date -u +%FT%TZ
cd $OUT && tar cJf all.tar.xz --remove-files ceilings-*.txt streams-*.json streams-*.txt decode-1t.* 2>/dev/null; ls $OUT
