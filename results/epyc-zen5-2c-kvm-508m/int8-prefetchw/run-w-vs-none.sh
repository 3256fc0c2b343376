#!/bin/bash
# Note (d0a1afb): in this build --slot-prefetch t0 issued no request (README), so "t0" here ran as none.
# B: main 28e278c's kvbench relinked at KVBENCH_LAYOUT_SHIFT 0, 64, 128 and 192 (k0, k64, k128, k192)
B=${B:?folder of the four binaries}
for t in 1 2; do
  if [ $t = 1 ]; then pin=pus:1; else pin=compact; fi
  $B/k0 ab --dir ab-w-vs-none-${t}t --rounds 8 --base $B/k0,$B/k64,$B/k128,$B/k192 --new $B/k0,$B/k64,$B/k128,$B/k192 --base-args '--slot-prefetch t0' --new-args '--slot-prefetch w' -- --benchmark append --layers 32 --q-heads 16 --kv-heads 1,2,8 --head-dim 128 --context 1000,4096 --dtype int8 --cache-state warm,fresh --ceilings none --llc 16MiB --repetitions 3 --min-time 0.05 --threads $t --pin $pin > ab-w-vs-none-${t}t.out 2>&1
  echo "ab ${t}T rc=$? $(date -u +%H:%M:%S)"
done
