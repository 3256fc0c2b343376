#!/usr/bin/env python3
"""Time PyTorch decode attention on kvbench's shapes and write rows in kvbench's CSV schema.

A peer for `kvbench report`: one query token, q_heads query vectors attending to `context`
cached K/V rows per layer, over all `layers` layers per step (so the working set is the whole
cache, as in kvbench's `attention` benchmark). Rows have benchmark=peer_torch; the `isa` column
says which torch path ran (`sdpa` = torch.nn.functional.scaled_dot_product_attention with
enable_gqa, `matmul` = grouped q.K^T / softmax / .V with batched matmuls, K and V read once).
Bytes and flops follow kvbench's cost model (kernels/cost_model.h): K+V rows + queries read,
outputs written, per query head and position 4*d + 4 flops.

Usage: torch_attention.py --out peers.csv [--layers 28 --q-heads 16 --kv-heads 8 --head-dim 128
        --context 1024,4096 --dtype fp32,bf16 --threads 1,2 --repetitions 10 --min-time 0.2]
        [--machine-from kvbench.csv]
The output file is never overwritten: it is created, or appended to with --append when its
header matches. --machine-from takes the machine columns (model name, signature, cache sizes,
the LLC kvbench used, hypervisor, ...) from the first row of a kvbench CSV written on this host,
so that `kvbench report` files the peer rows under the same machine as kvbench's: where /sys has
no cache sizes or hwloc names the CPU otherwise than /proc/cpuinfo (a guest), this script alone
would describe another machine. It takes that row's git_commit too, the kvbench build run beside
the peer: a checkout copied to another host (the device tool's) may carry a stale or no git HEAD.
"""
import argparse
import datetime as dt
import math
import os
import platform
import socket
import statistics
import subprocess
import sys
import time

import torch
import torch.nn.functional as F

SCHEMA_VERSION = 1
SOFTMAX_FLOPS_PER_SCORE = 4  # kernels/cost_model.h kSoftmaxFlopsPerScore
DTYPES = {"fp32": (torch.float32, 4), "fp16": (torch.float16, 2), "bf16": (torch.bfloat16, 2)}
COLUMNS = ("schema_version run_id timestamp host cpu_vendor cpu_model cpu_signature isa pus_total "
           "numa_nodes l1d_bytes l2_bytes l3_bytes llc_bytes llc_source llc_hwloc_bytes mem_bytes "
           "os_kernel hypervisor thp_mode governor "
           "compiler cxx_flags git_commit kvbench_version benchmark model layout dtype layers q_heads "
           "kv_heads head_dim context window batch threads pin pu_list placement thp cache_state "
           "ws_level aggregate repetition iterations ns_per_step tokens_per_s bytes_read "
           "bytes_written flops gbps gflops ai_flop_per_byte working_set_bytes ws_over_llc "
           "ceiling_gbps pct_of_ceiling valid max_rel_err").split()


def fail(message):
    print(f"torch_attention.py: error: {message}", file=sys.stderr)
    sys.exit(2)


def read(path, default=""):
    try:
        with open(path) as f:
            return f.read().strip()
    except OSError:
        return default


def cache_size(level, kind_prefix):
    """Size in bytes of cpu0's cache at `level` whose type starts with kind_prefix."""
    base = "/sys/devices/system/cpu/cpu0/cache"
    for index in sorted(os.listdir(base)) if os.path.isdir(base) else []:
        d = os.path.join(base, index)
        if read(f"{d}/level") == str(level) and read(f"{d}/type").startswith(kind_prefix):
            size = read(f"{d}/size")
            mult = {"K": 1024, "M": 1024 ** 2, "G": 1024 ** 3}.get(size[-1:], 1)
            return int(size.rstrip("KMG")) * mult, read(f"{d}/shared_cpu_list")
    return None, ""


def llc_total(pus):
    """Sum of distinct L3 instances the PUs in `pus` touch."""
    seen, total = set(), 0
    for pu in pus:
        base = f"/sys/devices/system/cpu/cpu{pu}/cache"
        for index in os.listdir(base) if os.path.isdir(base) else []:
            d = os.path.join(base, index)
            if read(f"{d}/level") == "3":
                key = read(f"{d}/shared_cpu_list")
                if key not in seen:
                    seen.add(key)
                    size = read(f"{d}/size")
                    total += int(size.rstrip("KMG")) * {"K": 1024, "M": 1024 ** 2}.get(size[-1:], 1)
    return total or None


def machine():
    info = {}
    cpuinfo = read("/proc/cpuinfo")
    for line in cpuinfo.splitlines():
        key, _, value = line.partition(":")
        key = key.strip()
        if key in ("vendor_id", "model name", "flags", "cpu family", "model", "stepping") and key not in info:
            info[key] = value.strip()
    pus = sorted(os.sched_getaffinity(0))
    nodes = [n for n in os.listdir("/sys/devices/system/node") if n.startswith("node")] \
        if os.path.isdir("/sys/devices/system/node") else ["node0"]
    mem = next((int(l.split()[1]) * 1024 for l in read("/proc/meminfo").splitlines()
                if l.startswith("MemTotal:")), "")
    thp = read("/sys/kernel/mm/transparent_hugepage/enabled")
    thp = thp[thp.find("[") + 1:thp.find("]")] if "[" in thp else "unknown"
    try:
        commit = subprocess.run(["git", "rev-parse", "--short=12", "HEAD"], capture_output=True,
                                text=True, cwd=os.path.dirname(os.path.abspath(__file__)),
                                check=True).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        commit = "unknown"
    l1d, _ = cache_size(1, "Data")
    l2, _ = cache_size(2, "Unified")
    l3, _ = cache_size(3, "Unified")
    return {
        "host": socket.gethostname().replace(",", " "),
        "cpu_vendor": info.get("vendor_id", "unknown"),
        "cpu_model": info.get("model name", "unknown").replace(",", " "),
        "cpu_signature": (f"family {info['cpu family']} model {info['model']} stepping {info['stepping']}"
                          if all(k in info for k in ("cpu family", "model", "stepping")) else "unknown"),
        "pus_total": os.cpu_count(), "pus": pus, "numa_nodes": len(nodes),
        "l1d_bytes": l1d or "", "l2_bytes": l2 or "", "l3_bytes": l3 or "",
        "llc_bytes": llc_total(pus) or "", "llc_source": "", "llc_hwloc_bytes": "", "mem_bytes": mem,
        "os_kernel": platform.release(),
        "hypervisor": "unknown-vm" if "hypervisor" in info.get("flags", "").split() else "none",
        "thp_mode": thp,
        "governor": read("/sys/devices/system/cpu/cpu0/cpufreq/scaling_governor", "unknown"),
        "compiler": f"torch {torch.__version__}", "cxx_flags": "", "git_commit": commit,
    }


MACHINE_COLUMNS = ("host cpu_vendor cpu_model cpu_signature pus_total numa_nodes l1d_bytes l2_bytes "
                   "l3_bytes llc_bytes llc_source llc_hwloc_bytes mem_bytes os_kernel hypervisor "
                   "thp_mode governor").split()


def machine_from(path, m):
    """m with its machine columns replaced by those of the first row of kvbench CSV `path`."""
    import csv
    try:
        with open(path, newline="") as f:
            first = next(csv.DictReader(f), None)
    except OSError as e:
        fail(f"--machine-from {path}: {e.strerror}")
    if first is None or "cpu_model" not in first:
        fail(f"--machine-from {path}: no kvbench result row")
    if first.get("host") != m["host"]:
        fail(f"--machine-from {path}: written on host '{first.get('host')}', this is '{m['host']}'")
    theirs = first.get("cpu_signature", "")
    if theirs and m["cpu_signature"] != "unknown" and theirs != m["cpu_signature"]:
        fail(f"--machine-from {path}: written on a CPU of {theirs}, this one is {m['cpu_signature']}")
    out = dict(m)
    if first.get("git_commit"):
        out["git_commit"] = first["git_commit"]
    for key in MACHINE_COLUMNS:
        value = first.get(key, "")
        out[key] = int(value) if key in ("l1d_bytes", "l2_bytes", "l3_bytes", "llc_bytes") and value else value
    return out


def ws_level(ws, m):
    for level, key in (("L1", "l1d_bytes"), ("L2", "l2_bytes"), ("L3", "llc_bytes")):
        if m[key] and ws <= m[key]:
            return level
    return "DRAM"


def attention_fn(method):
    def sdpa(q, k, v):  # q [Hkv*G,1,D], k/v [Hkv,T,D]
        return F.scaled_dot_product_attention(q.unsqueeze(0), k.unsqueeze(0), v.unsqueeze(0),
                                              enable_gqa=True).squeeze(0)

    def matmul(q, k, v):  # group the G query heads of a KV head: [Hkv, G, D] x [Hkv, D, T]
        hkv, d = k.shape[0], k.shape[2]
        qg = q.reshape(hkv, -1, d)
        p = torch.softmax(torch.bmm(qg, k.transpose(1, 2)) * (1.0 / math.sqrt(d)), dim=-1)
        return torch.bmm(p, v).reshape(-1, 1, d)
    return sdpa if method == "sdpa" else matmul


def pick_method():
    if hasattr(F, "scaled_dot_product_attention"):
        try:
            q, k = torch.randn(4, 1, 8), torch.randn(2, 3, 8)
            F.scaled_dot_product_attention(q.unsqueeze(0), k.unsqueeze(0), k.unsqueeze(0),
                                           enable_gqa=True)
            return "sdpa"
        except (TypeError, RuntimeError):
            pass
    return "matmul"


def reference_error(fn, q, k, v):
    """Largest |torch - exact| relative to the largest exact output, in float64."""
    out = fn(q, k, v).to(torch.float64)
    exact = attention_fn("matmul")(q.to(torch.float64), k.to(torch.float64), v.to(torch.float64))
    return float((out - exact).abs().max() / exact.abs().max().clamp_min(1e-30))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--out", required=True)
    ap.add_argument("--append", action="store_true", help="append to an existing file with the same header")
    ap.add_argument("--model", default="custom")
    ap.add_argument("--layers", type=int, default=28)
    ap.add_argument("--q-heads", type=int, default=16)
    ap.add_argument("--kv-heads", type=int, default=8)
    ap.add_argument("--head-dim", type=int, default=128)
    ap.add_argument("--context", default="1024,4096,16384")
    ap.add_argument("--dtype", default="fp32,fp16,bf16")
    ap.add_argument("--threads", default="1")
    ap.add_argument("--repetitions", type=int, default=10)
    ap.add_argument("--min-time", type=float, default=0.2, help="seconds per repetition")
    ap.add_argument("--kvbench-version", default="0.1.0")
    ap.add_argument("--machine-from", help="kvbench CSV written on this host: its machine columns")
    args = ap.parse_args()

    if min(args.layers, args.q_heads, args.kv_heads, args.head_dim, args.repetitions) <= 0:
        fail("layers, q-heads, kv-heads, head-dim and repetitions must be positive")
    if args.q_heads % args.kv_heads:
        fail(f"q-heads {args.q_heads} is not a multiple of kv-heads {args.kv_heads}")
    try:
        contexts = [int(c) for c in args.context.split(",")]
        threads = [int(t) for t in args.threads.split(",")]
    except ValueError as e:
        fail(f"bad number in --context/--threads: {e}")
    dtypes = args.dtype.split(",")
    for name in dtypes:
        if name not in DTYPES:
            fail(f"unknown dtype '{name}' (torch peer supports {', '.join(DTYPES)})")

    m = machine()  # before the output is created: a refused --machine-from leaves no file
    if args.machine_from:
        m = machine_from(args.machine_from, m)
    header = ",".join(COLUMNS)
    if os.path.exists(args.out):
        if not args.append:
            fail(f"{args.out} exists; refusing to overwrite (use --append)")
        with open(args.out) as f:
            if f.readline().strip() != header:
                fail(f"{args.out} has a different header; cannot append")
    out = open(args.out, "a")
    if out.tell() == 0:
        out.write(header + "\n")
        out.flush()

    method = pick_method()
    now = dt.datetime.now(dt.timezone.utc)
    run_id = f"{m['host']}-{now.strftime('%Y%m%dT%H%M%SZ')}"
    fn = attention_fn(method)
    cpu_cap = getattr(getattr(torch.backends, "cpu", None), "get_cpu_capability", lambda: "")()
    isa = f"torch-{method}" + (f"-{cpu_cap}" if cpu_cap else "")
    L, hq, hkv, d = args.layers, args.q_heads, args.kv_heads, args.head_dim

    for nthreads in threads:
        torch.set_num_threads(nthreads)
        for name in dtypes:
            tdtype, esize = DTYPES[name]
            for T in contexts:
                kv_bytes = 2 * L * hkv * T * d * esize
                gen = torch.Generator().manual_seed(1234)
                try:
                    ks = [torch.randn(hkv, T, d, generator=gen).to(tdtype) for _ in range(L)]
                    vs = [torch.randn(hkv, T, d, generator=gen).to(tdtype) for _ in range(L)]
                    q = torch.randn(hq, 1, d, generator=gen).to(tdtype)
                    err = reference_error(fn, q, ks[0], vs[0])
                except RuntimeError as e:  # e.g. an op without a CPU kernel for this dtype
                    print(f"skip {name} T={T}: {e}", file=sys.stderr)
                    continue
                tol = {"fp32": 1e-4, "fp16": 2e-2, "bf16": 5e-2}[name]

                def step():
                    for layer in range(L):
                        fn(q, ks[layer], vs[layer])
                step()  # warm-up
                samples = []
                for _ in range(args.repetitions):
                    iters, start = 0, time.perf_counter_ns()
                    while True:
                        step()
                        iters += 1
                        elapsed = time.perf_counter_ns() - start
                        if elapsed >= args.min_time * 1e9:
                            break
                    samples.append((elapsed / iters, iters))
                bytes_read = L * (kv_bytes // L + hq * d * 4)
                bytes_written = L * hq * d * 4
                flops = L * (hq * T * (4 * d + SOFTMAX_FLOPS_PER_SCORE) + hq * d)
                base = dict(m, schema_version=SCHEMA_VERSION, run_id=run_id,
                            isa=isa, kvbench_version=args.kvbench_version,
                            benchmark="peer_torch", model=args.model, layout="head_major",
                            dtype=name, layers=L, q_heads=hq, kv_heads=hkv, head_dim=d, context=T,
                            window="", batch=1, threads=nthreads, pin="none",
                            pu_list="+".join(map(str, m["pus"])), placement="first_touch",
                            thp="unknown", cache_state="warm", ws_level=ws_level(kv_bytes, m),
                            bytes_read=bytes_read, bytes_written=bytes_written, flops=flops,
                            working_set_bytes=kv_bytes,
                            ws_over_llc=f"{kv_bytes / m['llc_bytes']:.6g}" if m["llc_bytes"] else "",
                            ceiling_gbps="", pct_of_ceiling="", valid=int(err <= tol),
                            max_rel_err=f"{err:.3g}")

                def row(aggregate, rep, ns, iters):
                    r = dict(base, timestamp=dt.datetime.now(dt.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ"),
                             aggregate=aggregate, repetition=rep, iters=iters)
                    moved = bytes_read + bytes_written
                    r.update(iterations=iters, ns_per_step=f"{ns:.6g}",
                             tokens_per_s=f"{1e9 / ns:.6g}" if aggregate in ("none", "mean", "median") else "",
                             gbps=f"{moved / ns:.6g}" if aggregate in ("none", "mean", "median") else "",
                             gflops=f"{flops / ns:.6g}" if aggregate in ("none", "mean", "median") else "",
                             ai_flop_per_byte=f"{flops / moved:.6g}")
                    out.write(",".join(str(r[c]) for c in COLUMNS) + "\n")
                    out.flush()

                for i, (ns, iters) in enumerate(samples):
                    row("none", i, ns, iters)
                times = [s[0] for s in samples]
                mean = statistics.fmean(times)
                sd = statistics.stdev(times) if len(times) > 1 else 0.0
                row("mean", -1, mean, "")
                row("median", -1, statistics.median(times), "")
                row("stddev", -1, sd, "")
                row("cv", -1, sd / mean, "")
                print(f"peer_torch {name:5s} T={T:6d} threads={nthreads:2d}: "
                      f"{statistics.median(times) / 1e3:10.1f} us/step "
                      f"{(bytes_read + bytes_written) / statistics.median(times):7.2f} GB/s "
                      f"err={err:.2e} ({method})")
    out.close()


if __name__ == "__main__":
    main()
