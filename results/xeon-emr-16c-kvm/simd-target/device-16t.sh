#!/bin/bash
# One device call (2026-12-07, evening), on the EMR host (lscpu model 207): AVX-512 against AVX2
# at all 16 vCPUs, where the afternoon's device.sh measured 1 thread. bin/kvbench of
# .carry/pack-new.tar.xz is main 119ad40 (release), whose `kvbench ceilings` takes --simd-target:
# 1. kvbench ceilings at 16 threads under the best target and under avx2 (LLC held at 64 MiB);
# 2. kvbench ab --new-args '--simd-target avx2', Qwen3-0.6B decode_step, fp32, bf16 and int8,
#    192 positions (44 MiB of fp32: L3) and 8192 (DRAM), 16 threads, no ceilings (a time ratio
#    needs none), one layer checked against the double reference per run.
# The ab stops starting rounds past its --budget once two have run. On a Sapphire Rapids guest
# (model 143) the pending ../../xeon-spr-16c-kvm/tile-order/call.sh instead (this build is main's).
# Everything leaves as one archive.
cd "$(dirname "$0")/../../.."
model=$(lscpu | awk '/^Model:/{print $2}')
if [[ $model == 143 ]]; then
  CALL_S=${CALL_S:-450} bash results/xeon-spr-16c-kvm/tile-order/call.sh
  exit
fi
mkdir -p /tmp/pn "$OUT/st16" && tar xJf .carry/pack-new.tar.xz -C /tmp/pn
export LD_LIBRARY_PATH=/tmp/pn/lib KVBENCH_MODELS_DIR=$PWD/configs/models
K=/tmp/pn/bin/kvbench
lscpu > "$OUT/st16/lscpu.txt"; uname -a > "$OUT/st16/uname.txt"
$K topo --llc 64MiB > "$OUT/st16/topo.txt" 2>&1
date -u +%FT%TZ > "$OUT/st16/times.txt"
for t in best avx2; do
  timeout 60 $K ceilings --threads 16 --llc 64MiB --min-time 0.05 --simd-target $t > "$OUT/st16/ceilings-$t.txt" 2>&1
done
date -u +%FT%TZ >> "$OUT/st16/times.txt"
timeout ${AB_S:-360} $K ab --dir "$OUT/st16/ab-isa-t16" --new-args '--simd-target avx2' --rounds ${ROUNDS:-10} \
  --budget ${B_S:-300} -- --model qwen3-0.6b --benchmarks decode_step --context 192,8192 \
  --dtype fp32,bf16,int8 --threads 16 --repetitions 3 --min-time 0.05 --llc 64MiB --ceilings none \
  --validate-layers 1 > "$OUT/st16/ab-isa-t16.log" 2>&1
date -u +%FT%TZ >> "$OUT/st16/times.txt"
grep -h "^| decode_step" "$OUT"/st16/ab-*/compare.md 2>/dev/null | cut -d"|" -f3,5,6,12,13,18,19,20
cd "$OUT" && tar cJf st16.tar.xz st16 && rm -rf st16
