#!/usr/bin/env bash
# Runs every fuzz target for SECONDS (default 600), two at a time, seeded from the project's
# corpus (cargo run --bin seed) with the grammar's delimiters as a dictionary; prints each
# target's executions per second and whether it found anything (fuzz/artifacts/<target>/).
#
#   bash fuzz/run-all.sh [SECONDS]
set -euo pipefail
cd "$(dirname "$0")"
seconds=${1:-600}
cargo run --quiet --no-default-features --bin seed >/dev/null
cargo +nightly fuzz build -O -a >/dev/null 2>&1
mkdir -p logs
run() {
  cargo +nightly fuzz run -O -a "$1" "corpus/$1" -- -dict=handle.dict -max_len=4096 \
    -max_total_time="$seconds" -rss_limit_mb=2048 -print_final_stats=1 >"logs/$1.log" 2>&1 || true
  local execs runs
  execs=$(grep -o 'stat::number_of_executed_units: *[0-9]*' "logs/$1.log" | grep -o '[0-9]*$' || echo 0)
  runs=$(grep -o 'stat::average_exec_per_sec: *[0-9]*' "logs/$1.log" | grep -o '[0-9]*$' || echo 0)
  if [ -n "$(find "artifacts/$1" -type f 2>/dev/null | head -1)" ]; then
    echo "$1: $execs executions, $runs/s: FOUND (artifacts/$1/)"
  else
    echo "$1: $execs executions, $runs/s: nothing found"
  fi
}
targets=(handle recognize hdl_uri proxy query grammars clean extract record locations serve import protocol answer write_body authorization plugin_kwargs)
for ((i = 0; i < ${#targets[@]}; i += 2)); do
  run "${targets[i]}" &
  [ -n "${targets[i + 1]:-}" ] && run "${targets[i + 1]}" &
  wait
done
