#!/usr/bin/env bash
# Produces one CPU's reference result set in OUTDIR: topology, ceilings, a likwid-bench
# cross-check of the read ceiling (when likwid-bench is installed), the default run, a
# vendor-eval sweep and the PyTorch peer. Extra arguments go to the vendor-eval `kvbench run`
# (to trim the grid to a time budget); the exact commands are logged in OUTDIR/commands.txt.
#
#   results/reference-run.sh OUTDIR [kvbench run overrides...]
#
# KVBENCH selects the binary (default build/kvbench), PYTHON the interpreter that
# has torch (default python3), PEER_ARGS the torch peer's arguments, SKIP a space-separated
# list of steps to skip (topo ceilings likwid default vendor peer).
set -uo pipefail
out=${1:?usage: results/reference-run.sh OUTDIR [kvbench run overrides...]}
shift
kvbench=${KVBENCH:-build/kvbench}
python=${PYTHON:-python3}
skip=" ${SKIP:-} "
mkdir -p "$out"
log() { echo "$*" >> "$out/commands.txt"; }
step() {  # step NAME LOGFILE COMMAND...: run unless skipped, log the command and its status
  local name=$1 logfile=$2; shift 2
  [[ $skip == *" $name "* ]] && return 0
  log "$*"
  local start=$SECONDS
  "$@" > "$out/$logfile" 2>&1
  local rc=$?
  log "  -> exit $rc after $((SECONDS - start)) s"
  echo "[$name] exit $rc after $((SECONDS - start)) s" >&2
}

log "# $(date -u +%Y-%m-%dT%H:%M:%SZ) on $(hostname), kvbench $(git rev-parse --short=12 HEAD 2>/dev/null || echo unknown)"
threads_all=$(nproc)
step topo topo.txt "$kvbench" topo
step ceilings ceilings-1t.txt "$kvbench" ceilings --threads 1
step ceilings ceilings-all.txt "$kvbench" ceilings --threads all
if command -v likwid-bench >/dev/null; then
  for t in 1 "$threads_all"; do
    step likwid "likwid-load-1GB-${t}t.txt" likwid-bench -t load_avx512 -w "S0:1GB:$t"
    step likwid "likwid-load-16MB-${t}t.txt" likwid-bench -t load_avx512 -w "S0:16MB:$t"
  done
fi
step default default.log "$kvbench" run --out "$out/default.csv"
step vendor vendor-eval.log "$kvbench" run --config configs/sweeps/vendor-eval.ini --out "$out/vendor-eval.csv" "$@"
# shellcheck disable=SC2086
step peer peer_torch.log "$python" analysis/peers/torch_attention.py --out "$out/peer_torch.csv" ${PEER_ARGS:-}
exit 0
