#!/bin/bash
# 2026-12-05, EMR host, the second device call: ab.sh again (call.sh's pack) with 16 rounds at 1
# and 16 threads, to settle call.sh's 8 (fp32 at 1 thread 1.057x the time with 8 rows ahead, 6 of
# 8 rounds slower, p 0.12).
NAME=source-ahead-16 THREADS="1 16" ROUNDS=16 BUDGET=360 exec bash "$(dirname "$0")/ab.sh"
