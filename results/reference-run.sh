#!/usr/bin/env bash
# Produces one CPU's reference result set in OUTDIR: topology, ceilings, a likwid-bench
# cross-check of the read ceiling (when likwid-bench is installed), the default run, the
# efficiency-target runs (Qwen3-0.6B at every thread count, GQA, LLC fit), the PyTorch peer with
# kvbench rows of the same shapes, and a vendor-eval sweep. Extra arguments go to the vendor-eval
# `kvbench run` (to trim the grid to a time budget); the exact commands and their exit statuses
# are logged in OUTDIR/commands.txt. Each step writes its own file, so steps can run in separate
# sessions (ONLY / SKIP) into the same OUTDIR.
#
#   results/reference-run.sh OUTDIR [vendor-eval overrides...]
#
# Environment:
#   KVBENCH   the binary (default build/kvbench)     PYTHON   interpreter with torch (python3)
#   THREADS   thread counts of the target runs (default 1,2,4,... up to and with every PU)
#   ONLY      space-separated steps to run (default all); SKIP  steps to skip
#   STEP_TIMEOUT  seconds any one step may take (default: none)
#   REPETITIONS   repetitions of the target, GQA and peer runs (default 5)
#   HARNESS_BUILD folder holding harness/kvbench-harness-info for the likwid step (build)
#   LLC       --llc for every ceilings and run step. Default: the size `kvbench topo` decided with
#             --llc auto in OUTDIR/topo.txt (its first line), so every step of one set sizes its
#             contexts from one LLC, also when the steps run in separate sessions; auto where
#             there is no topo.txt. A host whose measured knee wanders between runs keeps one LLC
#             size across a series this way (the EMR host: 64-128 MiB within one session).
# Steps: topo ceilings likwid default targets gqa llcfit peer vendor
set -uo pipefail
out=${1:?usage: results/reference-run.sh OUTDIR [vendor-eval overrides...]}
shift
kvbench=${KVBENCH:-build/kvbench}
python=${PYTHON:-python3}
only=" ${ONLY:-topo ceilings likwid default targets gqa llcfit peer vendor} "
skip=" ${SKIP:-} "
timeout_s=${STEP_TIMEOUT:-0}
reps=${REPETITIONS:-5}
mkdir -p "$out"
llc_args=()
[[ -n ${LLC:-} ]] && llc_args=(--llc "$LLC")
pus=$(nproc)
if [[ -z ${THREADS:-} ]]; then
  THREADS=1
  for ((t = 2; t < pus; t *= 2)); do THREADS+=",$t"; done
  ((pus > 1)) && THREADS+=",$pus"
fi

log() { echo "$*" >> "$out/commands.txt"; }
wanted() { [[ $only == *" $1 "* && $skip != *" $1 "* ]]; }
step() {  # step NAME LOGFILE COMMAND...: run if wanted, log the command and its status
  local name=$1 logfile=$2; shift 2
  wanted "$name" || return 0
  log "$*"
  local start=$SECONDS rc
  if ((timeout_s > 0)); then
    timeout "$timeout_s" "$@" > "$out/$logfile" 2>&1
  else
    "$@" > "$out/$logfile" 2>&1
  fi
  rc=$?
  log "  -> exit $rc after $((SECONDS - start)) s"
  echo "[$name] exit $rc after $((SECONDS - start)) s" >&2
}

log "# $(date -u +%Y-%m-%dT%H:%M:%SZ) on $(hostname), $kvbench (every CSV row names its build's commit)"
step topo topo.txt "$kvbench" topo
# One core's read-bandwidth curve and the LLC it shows, beside hwloc's (what --llc auto decided
# is in topo.txt and in every CSV row's llc_source).
step topo topo-llc.txt "$kvbench" topo --llc measure
# Lent and shared machines change between sessions: record which CPU and kernel this one was.
command -v lscpu >/dev/null && step topo lscpu.txt lscpu
step topo uname.txt uname -a
# --llc auto probes the machine in every run, and where one core's knee sits near the LLC the
# steps of one set would size their contexts from different caches (the Zen 3 guest of
# 2026-11-29: 16 MiB measured in three steps, hwloc's 32 MiB kept in four). So the size topo
# decided holds for every step after it.
if ((${#llc_args[@]} == 0)) && [[ -f $out/topo.txt ]]; then
  decided=$(sed -En "1s/^kvbench: (hwloc's )?LLC ([0-9.]+) MiB (kept|measured).*/\2/p" "$out/topo.txt")
  if [[ -n $decided ]]; then
    llc_args=(--llc "${decided}MiB")
    log "# --llc ${decided}MiB for the steps below: what topo.txt's --llc auto decided (LLC= overrides)"
  fi
fi
step ceilings ceilings-1t.txt "$kvbench" ceilings --threads 1 "${llc_args[@]}"
step ceilings ceilings-all.txt "$kvbench" ceilings --threads all "${llc_args[@]}"
if command -v likwid-bench >/dev/null; then
  step likwid likwid-crosscheck.txt harness/likwid_crosscheck.sh "${HARNESS_BUILD:-build}" 2 \
    1GB:1 4GB:1 1GB:"$pus" 4GB:"$pus"
fi
step default default.log "$kvbench" run "${llc_args[@]}" --out "$out/default.csv"
# Decode streaming (contexts sized from the caches: L2, LLC and 4x LLC), one-token append
# against a memcpy of the same bytes, and the bulk prefill copy, every dtype, every thread count.
# The append runs twice: rewriting one slot (warm) and at a new position every step (fresh, as a
# decode writes; decode_step and prefill_copy skip that state), each with the cache's stores
# (append) and with streaming ones (append_streaming).
# --ceiling-bracket: each row is held against its own ceiling measured right before and after
# it, so a shared host's drift within the run is not read as a change of efficiency.
step targets targets.log "$kvbench" run "${llc_args[@]}" --model qwen3-0.6b --context auto --dtype all \
  --threads "$THREADS" --benchmarks decode_step,append,append_streaming,prefill_copy --cache-state warm,fresh --repetitions "$reps" \
  --min-time 0.1 --ceiling-bracket --out "$out/targets.csv"
step gqa gqa.log "$kvbench" run "${llc_args[@]}" --model qwen3-0.6b --q-heads 8,16,32,64 --kv-heads 8 \
  --context 16384 --threads "1,$pus" --dtype all --benchmarks attention --repetitions "$reps" \
  --min-time 0.1 --ceiling-bracket --out "$out/gqa.csv"
# The LLC fit and the vendor grid are bracketed too: on a shared host (the EMR host's vCPUs share
# cores from 8 threads up) a row's ceiling and core state matter as much there as in the targets.
step llcfit llc-fit.log "$kvbench" run "${llc_args[@]}" --config configs/sweeps/llc-fit.ini --ceiling-bracket \
  --out "$out/llc-fit.csv"
# The peer and kvbench on the same shapes, one after the other.
peer_dtypes=${PEER_DTYPES:-fp32,fp16,bf16}
step peer peer-match.log "$kvbench" run "${llc_args[@]}" --model qwen3-0.6b --context 4096,16384 \
  --dtype "$peer_dtypes" --threads "1,$pus" --benchmarks attention --repetitions "$reps" --min-time 0.1 \
  --out "$out/peer-match.csv"
step peer peer_torch.log "$python" analysis/peers/torch_attention.py --model qwen3-0.6b \
  --layers 28 --q-heads 16 --kv-heads 8 --head-dim 128 --context 4096,16384 \
  --dtype "$peer_dtypes" --threads "1,$pus" --repetitions "$reps" --min-time 0.1 \
  --machine-from "$out/peer-match.csv" --out "$out/peer_torch.csv"
step vendor vendor-eval.log "$kvbench" run "${llc_args[@]}" --config configs/sweeps/vendor-eval.ini \
  --ceiling-bracket --out "$out/vendor-eval.csv" "$@"
exit 0
