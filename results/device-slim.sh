#!/bin/bash
# The device tool sends the checkout's tracked and untracked files, 64 MiB at most, and the
# committed results alone pass that (89 MiB on 2026-12-05). Around a device call:
#
#   results/device-slim.sh hide [KEEP...]   remove from the working tree every tracked file in a
#                                           folder below results/, except scripts and those under
#                                           a KEEP path
#   results/device-slim.sh restore          check them out again
#
# Shell scripts stay (results/*.sh and those of the folders, which the device calls run: a call of
# session-2026-12-04/call.sh once found it removed), as do untracked files and files edited but
# not staged. Only the working tree changes: nothing committed or staged is touched, and restore
# brings back exactly what hide removed.
set -euo pipefail
cd "$(dirname "$0")/.."
case "${1:-}" in
  hide)
    shift
    # Files edited and not yet staged stay: restore would bring back the index's copy instead.
    declare -A edited=()
    while IFS= read -r -d '' f; do edited[$f]=1; done < <(git ls-files -z -m results)
    git ls-files -z results | grep -zv '^results/[^/]*$' | while IFS= read -r -d '' f; do
      [[ $f == *.sh ]] && continue
      for k in "$@"; do [[ $f == "${k%/}"/* ]] && continue 2; done
      [[ -n ${edited[$f]:-} ]] || rm -f -- "$f"
    done
    find results -mindepth 1 -type d -empty -delete
    git ls-files -z | { xargs -0 stat -c %s -- 2>/dev/null || true; } |
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
