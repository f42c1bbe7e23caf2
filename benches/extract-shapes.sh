#!/usr/bin/env bash
# `hdl extract` on one line of 1 MiB of each costliest shape (tests/support/shapes.rs) and
# of ordinary text, through the built command: the fastest of RUNS runs each, and the ratio
# to ordinary text. Run on a quiet machine.
#
#   bash benches/extract-shapes.sh [RUNS]
set -euo pipefail
cd "$(dirname "$0")/.."
runs=${1:-5}
t=$(mktemp -d); trap 'rm -rf "$t"' EXIT
cargo build --release -q -p handle-cli
cargo run --release -q --example extract_shapes "$t" > "$t/list"
best() { # file: the fastest run, in ms
  for _ in $(seq "$runs"); do
    s=$(date +%s%N); target/release/hdl extract "$1" > "$t/out" 2>/dev/null || true; e=$(date +%s%N)
    echo $(( (e - s) / 1000 ))
  done | sort -n | head -1 | awk '{ printf "%.1f", $1 / 1000 }'
}
echo "| text (1 MiB, one line) | hdl extract | found | / ordinary text |"
echo "|---|---|---|---|"
base=
while IFS=$'\t' read -r file name; do
  ms=$(best "$file")
  found=$(target/release/hdl extract "$file" 2>/dev/null | wc -l || true)
  base=${base:-$ms}
  echo "| $name | $ms ms | $found | $(awk "BEGIN { printf \"%.2f\", $ms / $base }") |"
done < "$t/list"
