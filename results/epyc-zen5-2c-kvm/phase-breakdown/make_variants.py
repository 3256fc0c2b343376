#!/usr/bin/env python3
"""Record of a measurement, not part of the build. Writes copies of kernels/attention.cc with
phases of the kernel knocked out (timing only; the results are wrong on purpose):
  cur     unchanged
  nopf    no software prefetch (StreamPrefetch returns at once)
  sconly  scores only (no softmax, no V accumulation, no prefetch)
  aconly  V accumulation only (no scores, no softmax, no prefetch)
  smonly  softmax only (no scores, no V accumulation, no prefetch)
Each copy names itself in HWY_TARGET_INCLUDE, or Highway re-includes the original per target.
  make_variants.py SRC_ATTENTION_CC OUTDIR"""
import pathlib, sys

src = pathlib.Path(sys.argv[1]).read_text()
out = pathlib.Path(sys.argv[2])
PF = ("    r1 = std::min(r1, rows);\n    if (r0 >= r1) return;",
      "    return;\n    r1 = std::min(r1, rows);\n    if (r0 >= r1) return;")
ACC = ("    g = 0;\n    pass = 0;\n    const auto vpass",
       "    continue;\n    g = 0;\n    pass = 0;\n    const auto vpass")
SM = ("    // Online softmax, once per tile and head.\n    for (g = 0; g < G; ++g) {",
      "    // Online softmax, once per tile and head.\n    for (g = 0; g < 0; ++g) {")
SC = ("    for (; g + kHeadsBlock <= G; g += kHeadsBlock)\n      ScoreHeads",
      "    g = G;\n    for (; g + kHeadsBlock <= G; g += kHeadsBlock)\n      ScoreHeads")
variants = {"cur": [], "nopf": [PF], "sconly": [PF, ACC, SM], "aconly": [PF, SC, SM], "smonly": [PF, SC, ACC]}
for name, edits in variants.items():
    s = src
    for old, new in edits:
        if old not in s:
            sys.exit(f"{name}: pattern not found (attention.cc changed): {old[:40]!r}")
        s = s.replace(old, new)
    include = '#define HWY_TARGET_INCLUDE "kernels/attention.cc"'
    if include not in s:
        sys.exit("HWY_TARGET_INCLUDE line not found")
    s = s.replace(include, f'#define HWY_TARGET_INCLUDE "{name}.cc"')
    (out / f"{name}.cc").write_text(s)
