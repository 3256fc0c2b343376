#!/bin/bash
# Record of a measurement, not part of the build: the phase breakdown at 1 thread, pinned to PU
# $PU (default 1), ROUNDS alternating rounds (default 3). Contexts per dtype: L2-sized (one layer),
# then LLC- and DRAM-sized (28 layers; the contexts of kvbench's Qwen3-0.6B targets on this CPU).
#   run.sh BINDIR "fp32:L2CTX:LLCCTX:DRAMCTX ..."
bin=$1; shift
pu=${PU:-1}
for rnd in $(seq 1 "${ROUNDS:-3}"); do
  for spec in $1; do
    IFS=: read -r dt c2 c3 cd <<< "$spec"
    for v in cur nopf sconly aconly smonly; do
      echo "r$rnd $v $(taskset -c "$pu" "$bin/phase_$v" 1 "$c2" 2 "$dt" 2000 0)"
      echo "r$rnd $v $(taskset -c "$pu" "$bin/phase_$v" 28 "$c3" 2 "$dt" 40 1)"
      echo "r$rnd $v $(taskset -c "$pu" "$bin/phase_$v" 28 "$cd" 2 "$dt" 3 1)"
    done
  done
done
