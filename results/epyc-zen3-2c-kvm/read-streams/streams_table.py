#!/usr/bin/env python3
"""Per round of run.sh (or of a device call's streams.json): the DRAM read ceiling's two loops
(kvbench ceilings) and kernel_bench's read_streams/ rows, best and median of their repetitions,
with each stream count's best over the one-stream loop's best of the same window. The JSON may
be xz-compressed (streams-r1.json.xz).
usage: streams_table.py DIR"""
import collections, glob, json, lzma, os, re, statistics, sys

d = sys.argv[1]
def ceilings(path):
    for line in open(path):
        m = re.match(r'ceiling_read\s+DRAM\s+\d+\s+([\d.]+).*plain loop ([\d.]+)(?:, (\S+) window ([\d.]+))?', line)
        if m: return m.group(2), m.group(4) or '-'
    return '-', '-'
files = sorted(glob.glob(os.path.join(d, 'streams*.json')) + glob.glob(os.path.join(d, 'streams*.json.xz')))
for f in files:
    r = re.search(r'streams-?(r\d+)?\.json', os.path.basename(f)).group(1) or ''
    opener = lzma.open if f.endswith('.xz') else open
    runs = collections.defaultdict(list)
    for b in json.load(opener(f, 'rt'))['benchmarks']:
        if b.get('run_type') == 'iteration':
            m = re.match(r'read_streams/streams:(\d+)/threads:(\d+)/pf:(\d+)', b['run_name'])
            runs[(int(m.group(2)), int(m.group(3)), int(m.group(1)))].append(b['GB/s'])  # Google Benchmark's rate: GB/s
    print(f'## {os.path.basename(f)}')
    print('| threads | kvbench ceiling: plain, window | window | 1 stream best (median) | 2 streams | 4 streams | 2 / 1 best | 4 / 1 best |')
    print('|---|---|---|---|---|---|---|---|')
    for t in sorted({k[0] for k in runs}):
        c = os.path.join(d, f'ceilings-{r}-t{t}.txt') if r else ''
        plain, window = ceilings(c) if c and os.path.exists(c) else ('-', '-')
        for pf in (0, 4096):
            cell = {s: runs.get((t, pf, s), []) for s in (1, 2, 4)}
            if not cell[1]: continue
            best = {s: max(v) for s, v in cell.items() if v}
            fmt = lambda s: f'{best[s]:.1f} ({statistics.median(cell[s]):.1f})' if s in best else '-'
            print(f'| {t} | {plain}, {window} | {"none" if pf == 0 else pf} | {fmt(1)} | {fmt(2)} | {fmt(4)} | '
                  f'{best[2] / best[1]:.3f} | {best[4] / best[1]:.3f} |')
