#!/bin/bash
# One device call for the read ceiling's fourth loop (four streams per core, main's build in
# .carry/pack-new.tar.xz): `kvbench ceilings` at 1, 2, 4, 8 and 16 threads twice round, then
# Qwen3-0.6B `decode_step` from DRAM (16384 positions, every dtype) at 1 and 16 threads,
# bracketed, all with the LLC held at 64 MiB as the sets do. Where the lent machine is the EMR host
# (model 207), it first runs set-c6c74e7's missing vendor grid (2, 4 and 8 threads) with that
# set's build (.carry/pack.tar.xz, ../../xeon-emr-16c-kvm/set-c6c74e7/call.sh CALL=E), then the
# ceilings once round at 1 and 16 threads and no decode run (EMR_DECODE_S: its seconds; SKIP_VENDOR
# leaves the grid out where too little device time is left for it). Everything of this part leaves as one archive (the device tool returns at
# most 8 files). ROUNDS, THREAD_COUNTS and DECODE_S (0: no decode run) trim it to the device time
# left.
cd "$(dirname "$0")/../../.."
lscpu > "$OUT/lscpu.txt"; uname -a > "$OUT/uname.txt"
model=$(awk '/^Model:/ {print $2}' "$OUT/lscpu.txt")
rounds=${ROUNDS:-1 2}
thread_counts=${THREAD_COUNTS:-1 2 4 8 16}
decode_s=${DECODE_S:-170}
if [[ $model == 207 && -z ${SKIP_VENDOR:-} ]]; then
  CALL=E bash results/xeon-emr-16c-kvm/set-c6c74e7/call.sh
  rounds=1 thread_counts="1 16" decode_s=${EMR_DECODE_S:-0}
fi
mkdir -p /tmp/pn "$OUT/fs" && tar xJf .carry/pack-new.tar.xz -C /tmp/pn
export LD_LIBRARY_PATH=/tmp/pn/lib KVBENCH_MODELS_DIR=$PWD/configs/models
K=/tmp/pn/bin/kvbench
date -u +%FT%TZ > "$OUT/fs/times.txt"
for round in $rounds; do
  for t in $thread_counts; do
    timeout 60 $K ceilings --threads $t --llc 64MiB > "$OUT/fs/ceilings-r$round-t$t.txt" 2>&1
  done
done
date -u +%FT%TZ >> "$OUT/fs/times.txt"
((decode_s > 0)) && timeout $decode_s $K run --llc 64MiB --model qwen3-0.6b --context 16384 --threads 1,16 --dtype fp32,fp16,bf16,int8 \
  --benchmarks decode_step --ceiling-bracket --out "$OUT/fs/decode.csv" > "$OUT/fs/decode.log" 2>&1
echo "decode rc $?" >> "$OUT/fs/times.txt"
date -u +%FT%TZ >> "$OUT/fs/times.txt"
grep -h "ceiling_read .*DRAM" "$OUT"/fs/ceilings-r*-t*.txt
cd "$OUT" && tar cJf four-streams.tar.xz fs && rm -rf fs
