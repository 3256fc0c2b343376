#!/bin/bash
# Session 2026-11-26e, call 4: prefill_copy fp32 into 1 GiB with one source reused for every
# layer (main 4553f4b's build, "old") and with one source per layer (the change after 25187bc,
# "new"), alternating, 1 and 8 threads, --llc 64MiB as in call 2.
tar xJf .carry/pack.tar.xz -C .carry
export LD_LIBRARY_PATH=$PWD/.carry/lib KVBENCH_MODELS_DIR=$PWD/configs/models
for r in 1 2; do
  for b in kvbench kvbench_new; do
    .carry/bin/$b run --model qwen3-0.6b --context 4682 --dtype fp32 --threads 1,8 --llc 64MiB \
      --benchmarks prefill_copy --repetitions 3 --min-time 0.1 --ceiling-bracket \
      --out $OUT/prefill-$b-$r.csv > /dev/null 2>&1
    python3 - "$OUT/prefill-$b-$r.csv" $b $r <<'PY'
import csv, sys
for row in csv.DictReader(open(sys.argv[1])):
    if row['benchmark'] == 'prefill_copy' and row['aggregate'] == 'median':
        print(sys.argv[2], 'round', sys.argv[3], 'threads', row['threads'], 'GB/s %.1f' % float(row['gbps']),
              'copy ceiling %.1f' % float(row['ceiling_gbps']), '%.0f%%' % float(row['pct_of_ceiling']))
PY
  done
done | tee $OUT/prefill-ab.txt
