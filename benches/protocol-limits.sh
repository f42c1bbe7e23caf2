#!/usr/bin/env bash
# The UDP limiter's cost per answer (SPEC N14) at the protocol benchmark's load: the
# reference's compare.sh (../shared/reference/hsload) run in turns on `hdl serve` as it
# starts by default (loopback, where the load comes from, is not limited: no table is
# looked at) and with every request put through the table (--udp-limit-loopback, budgets
# too large to limit anything). Each run prints the reference's CPU per answer and ours.
#
#   bash benches/protocol-limits.sh [rounds] [seconds]   (release build first)
set -euo pipefail
cd "$(dirname "$0")/.."
rounds=${1:-3}; secs=${2:-8}
hdl=$PWD/target/release/hdl
compare=../shared/reference/hsload/compare.sh
[ -x "$hdl" ] || cargo build -q --release -p handle-cli
[ -f "$compare" ] || { echo "protocol-limits.sh: skipped: no $compare"; exit 0; }
t=$(mktemp -d); trap 'rm -rf "$t"' EXIT
# compare.sh starts `HDL serve …`: a wrapper adds the flags after its own.
wrap() { # name, flags...
  local name=$1; shift
  printf '#!/bin/sh\nexec "%s" "$@" %s\n' "$hdl" "$*" >"$t/$name"
  chmod +x "$t/$name"
}
wrap default
wrap limited --udp-limit-loopback --udp-answers-per-second 4294967295 --udp-bytes-per-second 4294967295
for r in $(seq 1 "$rounds"); do
  for name in default limited; do
    echo "== round $r: $name"
    bash "$compare" "$t/$name" "$secs" | grep -E "CPU per resolution|less CPU"
  done
done
