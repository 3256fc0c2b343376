#!/bin/bash
# 2026-12-05, EMR host, the third device call: ab.sh (call.sh's pack) at 16 threads, 32 rounds,
# where calls 1 and 2 left int8 at 1.043x and 1.073x the time with 8 rows ahead (3 of 8 and 3 of
# 16 rounds faster, neither significant), then at 2 threads (the Zen 5 guest's significant 0.856x
# was at 2), as many rounds as fit the budget.
NAME=source-ahead-32 THREADS="16 2" ROUNDS=32 BUDGET=220 exec bash "$(dirname "$0")/ab.sh"
