#!/usr/bin/env bash
# Two builds of `hdl serve` against each other (BENCHMARKS.md): the same records imported
# by each into its own store, both servers up side by side, then wrk on loopback with 64
# connections against redirects and against /api/handles/<handle> (handles at random), the
# two builds in turns, ROUNDS rounds of SECONDS each (the first a warm-up, left out), and
# the medians compared. The machine's speed drifts within minutes: only turns compare.
# Needs wrk (apt-get install wrk). Run on a quiet machine, nothing else running.
#
#   bash serve/benches/versus.sh OLD_HDL NEW_HDL [RECORDS] [SECONDS] [ROUNDS]
set -euo pipefail
cd "$(dirname "$0")/../.."
old=$1
new=$2
n=${3:-100000}
secs=${4:-5}
rounds=${5:-8}
command -v wrk >/dev/null || { echo "versus.sh: needs wrk (apt-get install wrk)"; exit 2; }
work=$(mktemp -d)
trap 'kill $(jobs -p) 2>/dev/null || true; rm -rf "$work"' EXIT
cargo build --release -q -p handle-serve --example records
target/release/examples/records "$n" > "$work/records.jsonl"
listening() { # wait for "listening on" in $1
  for _ in $(seq 1 1000); do grep -q "listening on" "$1" 2>/dev/null && return 0; sleep 0.01; done; return 1
}
port=8180
for build in old new; do
  bin=${!build}
  "$bin" serve import --records "$work/records.jsonl" --store "$work/$build.redb" > /dev/null 2>&1
  "$bin" serve --store "$work/$build.redb" --bind "127.0.0.1:$port" --quiet 2> "$work/$build.log" &
  listening "$work/$build.log" || { echo "versus.sh: the $build server did not start:"; cat "$work/$build.log"; exit 2; }
  eval "${build}_port=$port"
  port=$((port + 1))
done
curl -si "http://127.0.0.1:$old_port/20.1000/1" | head -12 > "$work/old.answer" || true
curl -si "http://127.0.0.1:$new_port/20.1000/1" | head -12 > "$work/new.answer" || true
echo "records: $n; a redirect, old build:"; sed 's/^/  /' "$work/old.answer"
echo "new build:"; sed 's/^/  /' "$work/new.answer"; echo

cat > "$work/random.lua" <<LUA
request = function()
  return wrk.format("GET", string.format(prefix .. "20.1000/%d", math.random(0, $n - 1)))
end
LUA
run() { # prefix, port, round -> requests per second
  sed "1s|^|prefix = \"$1\"\nmath.randomseed($3)\n|" "$work/random.lua" > "$work/run.lua"
  wrk -t1 -c64 -d"${secs}s" -s "$work/run.lua" "http://127.0.0.1:$2" 2>&1 | awk '
    /Requests\/sec/ { rps = $2 } /Non-2xx|Socket errors/ { print "wrk: " $0 > "/dev/stderr" }
    END { printf "%d\n", rps }'
}
: > "$work/rounds"
for round in $(seq 0 "$rounds"); do
  line=""
  for kind in "/ redirect" "/api/handles/ api"; do
    set -- $kind
    # (Which build goes first alternates by round.)
    if [ $((round % 2)) -eq 0 ]; then a=$(run "$1" "$old_port" "$round"); b=$(run "$1" "$new_port" "$round")
    else b=$(run "$1" "$new_port" "$round"); a=$(run "$1" "$old_port" "$round"); fi
    line="$line $a $b"
  done
  echo "round $round: redirect old/new$(echo "$line" | awk '{print " " $1 " " $2 " | api old/new " $3 " " $4}')"
  [ "$round" -gt 0 ] && echo "$line" >> "$work/rounds"
done
median() { awk -v c="$1" '{ print $c }' "$work/rounds" | sort -n | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
for kind in "redirect 1" "api 3"; do
  set -- $kind
  o=$(median "$2"); w=$(median $(($2 + 1)))
  echo "== $1: old $o, new $w requests/s (medians of $rounds rounds): new/old $(awk "BEGIN{printf \"%.3f\", $w / $o}")"
done
