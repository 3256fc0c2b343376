#!/bin/bash
# merge.sh DEST ARCHIVE...: the archives steps.sh returned, one per device call and in call
# order, unpacked into DEST as one set: each call's files (a later call's file of the same name
# wins) and the calls' commands.txt logs one after the other, with the device's output folder
# written as OUT.
set -euo pipefail
dest=${1:?usage: merge.sh DEST ARCHIVE...}
shift
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$dest"
: > "$tmp/commands.txt"
for archive in "$@"; do
  rm -rf "$tmp/emr"
  tar xJf "$archive" -C "$tmp"
  [ -f "$tmp/emr/commands.txt" ] && cat "$tmp/emr/commands.txt" >> "$tmp/commands.txt"
  find "$tmp/emr" -maxdepth 1 -type f ! -name commands.txt -exec cp {} "$dest/" \;
done
sed 's#/root/out/emr#OUT#g' "$tmp/commands.txt" > "$dest/commands.txt"
echo "merged $# archive(s) into $dest ($(ls "$dest" | wc -l) files)"
