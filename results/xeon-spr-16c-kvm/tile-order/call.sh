#!/bin/bash
# One device call: kvbench run --tile-order halves (each KV head's range read as two halves in
# turn, two K and two V streams; kernels/tile_order.h) against linear, and the kernels' prefetch
# hint T2 against T0, as kvbench ab rounds: Qwen3-0.6B decode_step from DRAM (16384 positions),
# LLC held at 64 MiB as the sets do. Main's build in .carry/pack-new.tar.xz (bin/kvbench, lib/).
# AB1: halves, 1 thread, every dtype; AB2: halves, 16 threads; AB3: T2, 1 thread. Each ab stops
# starting rounds past its --budget (seconds) once two have run; a run cut by the call's limit
# leaves its finished rounds, which kvbench compare reads here; CALL_S (540) bounds the three.
# Everything leaves as one archive.
cd "$(dirname "$0")/../../.."
mkdir -p /tmp/pn "$OUT/to" && tar xJf .carry/pack-new.tar.xz -C /tmp/pn
export LD_LIBRARY_PATH=/tmp/pn/lib KVBENCH_MODELS_DIR=$PWD/configs/models
export K=/tmp/pn/bin/kvbench
lscpu > "$OUT/to/lscpu.txt"; uname -a > "$OUT/to/uname.txt"
export shape="--llc 64MiB --model qwen3-0.6b --context 16384 --benchmarks decode_step"
timeout ${CALL_S:-540} bash -c '
date -u +%FT%TZ > "$OUT/to/times.txt"
$K ab --dir "$OUT/to/ab1-halves-t1" --new-args "--tile-order halves" --rounds 3 --budget ${AB1_S:-150} \
  -- $shape --threads 1 --dtype fp32,fp16,bf16,int8 > "$OUT/to/ab1.log" 2>&1
date -u +%FT%TZ >> "$OUT/to/times.txt"
$K ab --dir "$OUT/to/ab2-halves-t16" --new-args "--tile-order halves" --rounds 3 --budget ${AB2_S:-120} \
  -- $shape --threads 16 --dtype fp32,fp16,bf16,int8 > "$OUT/to/ab2.log" 2>&1
date -u +%FT%TZ >> "$OUT/to/times.txt"
$K ab --dir "$OUT/to/ab3-t2-t1" --base-args "--sw-prefetch t0" --new-args "--sw-prefetch t2" --rounds 3 \
  --budget ${AB3_S:-100} -- $shape --threads 1 --dtype fp32,fp16,int8 > "$OUT/to/ab3.log" 2>&1
date -u +%FT%TZ >> "$OUT/to/times.txt"
'
grep -h "^| decode_step" "$OUT"/to/ab*/compare.md 2>/dev/null | cut -d"|" -f5,10,12,18-20
cd "$OUT" && tar cJf tile-order.tar.xz to && rm -rf to
