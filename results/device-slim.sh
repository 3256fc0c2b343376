#!/bin/bash
# The device tool sends the checkout's tracked and untracked files, 64 MiB at most, and the
# committed results alone pass that (89 MiB on 2026-12-05). Around a device call:
#
#   results/device-slim.sh hide [KEEP...]   remove from the working tree every tracked file in a
#                                           folder below results/, except those under a KEEP path
#   results/device-slim.sh restore          check them out again
#
# results/*.sh (the device scripts) and untracked files stay. Only the working tree changes:
# nothing committed or staged is touched, and restore brings back exactly what hide removed.
set -euo pipefail
cd "$(dirname "$0")/.."
case "${1:-}" in
  hide)
    shift
    git ls-files -z results | grep -zv '^results/[^/]*$' | while IFS= read -r -d '' f; do
      for k in "$@"; do [[ $f == "${k%/}"/* ]] && continue 2; done
      rm -f -- "$f"
    done
    find results -mindepth 1 -type d -empty -delete
    git ls-files -z | while IFS= read -r -d '' f; do if [[ -f $f ]]; then stat -c %s -- "$f"; fi; done |
      awk '{s += $1} END {printf "tracked files left: %.1f MiB\n", s / 1048576}'
    ;;
  restore)
    git ls-files -z --deleted results | xargs -0 -r git checkout --
    ;;
  *)
    echo "usage: results/device-slim.sh hide [KEEP...] | restore" >&2
    exit 2
    ;;
esac
