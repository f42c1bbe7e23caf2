#!/usr/bin/env bash
# The load benchmark of `hdl serve` (BENCHMARKS.md): 1 million records imported into a new
# store (time), the server started on it (time to listening), then wrk on loopback with 64
# connections against /api/handles/<handle> and against redirects (handles at random over
# the million), and against the floor: a minimal server on the same stack answering one
# fixed redirect; the three in turns, ROUNDS rounds of SECONDS each, medians compared.
# Then 60 s of load with the server's memory sampled every 5 s.
# Needs wrk (apt-get install wrk). Run on a quiet machine, nothing else running.
#
#   bash serve/benches/load.sh [RECORDS] [SECONDS] [CACHE_MIB] [ROUNDS]
set -euo pipefail
cd "$(dirname "$0")/../.."
n=${1:-1000000}
secs=${2:-30}
cache=${3:-64}
rounds=${4:-6}
work=$(mktemp -d)
trap 'kill $(jobs -p) 2>/dev/null || true; rm -rf "$work"' EXIT
cargo build --release -q -p handle-cli -p handle-serve --examples --bin hdl
bin=target/release
$bin/examples/records "$n" > "$work/records.jsonl"
sync # the records file's writeback would run into the timings
echo "records: $n, $(du -h "$work/records.jsonl" | cut -f1), page cache $cache MiB"

start=$(date +%s.%N)
$bin/hdl serve import --records "$work/records.jsonl" --store "$work/store.redb" 2>&1
end=$(date +%s.%N)
echo "import: $(awk "BEGIN{printf \"%.3f\", $end - $start}") s, store $(du -h "$work/store.redb" | cut -f1)"
sync

listening() { # wait for "listening on" in $1
  for _ in $(seq 1 500); do grep -q "listening on" "$1" 2>/dev/null && return 0; sleep 0.01; done; return 1
}
start=$(date +%s.%N)
$bin/hdl serve --store "$work/store.redb" --bind 127.0.0.1:8080 --quiet --cache-mib "$cache" 2> "$work/serve.log" &
server=$!
listening "$work/serve.log"
end=$(date +%s.%N)
echo "restart on the existing store: $(awk "BEGIN{printf \"%.3f\", $end - $start}") s to listening"

cat > "$work/random.lua" <<LUA
request = function()
  return wrk.format("GET", string.format(prefix .. "20.1000/%d", math.random(0, $n - 1)))
end
LUA
$bin/examples/floor 127.0.0.1:8081 2> "$work/floor.log" &
floor=$!
listening "$work/floor.log"

# The machine's speed drifts by a third within minutes, so the three are measured in
# turns: each round runs the REST API, redirects and the floor for SECONDS each, and the
# medians over the rounds are compared (the first round warms the server's page cache
# and is left out).
run() { # prefix, url, round -> "rps p50_ms p99_ms"
  sed "1s|^|prefix = \"$1\"\nmath.randomseed($3)\n|" "$work/random.lua" > "$work/run.lua"
  wrk -t1 -c64 -d"${secs}s" --latency -s "$work/run.lua" "$2" 2>&1 | awk '
    function ms(v) { if (v ~ /us$/) return v / 1000; if (v ~ /ms$/) return v + 0; return v * 1000 }
    /Requests\/sec/ { rps = $2 } / 50%/ { p50 = ms($2) } / 99%/ { p99 = ms($2) }
    /Non-2xx|Socket errors/ { print "wrk: " $0 > "/dev/stderr" }
    END { printf "%d %.2f %.2f\n", rps, p50, p99 }'
}
: > "$work/rounds"
for round in $(seq 0 "$rounds"); do
  api=$(run "/api/handles/" http://127.0.0.1:8080 "$round")
  redirect=$(run "/" http://127.0.0.1:8080 "$round")
  fixed=$(run "/" http://127.0.0.1:8081 "$round")
  echo "round $round: api $api | redirect $redirect | floor $fixed"
  [ "$round" -gt 0 ] && echo "$api $redirect $fixed" >> "$work/rounds"
done
kill $floor
# Medians per column over the rounds; the highest p99 of each.
median() { cut -d' ' -f"$1" "$work/rounds" | sort -n | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
highest() { cut -d' ' -f"$1" "$work/rounds" | sort -n | tail -1; }
floor_rps=$(median 7)
for kind in "api 1" "redirect 4" "floor 7"; do
  set -- $kind
  rps=$(median "$2")
  echo "== $1: median $rps requests/s ($(awk "BEGIN{printf \"%.1f\", 100 * $rps / $floor_rps}")% of the floor), p50 $(median $(($2 + 1))) ms, p99 median $(median $(($2 + 2))) ms, highest $(highest $(($2 + 2))) ms"
done

echo "== memory under 60 s of load (redirects), RSS in KiB every 5 s"
sed "1s|^|prefix = \"/\"\n|" "$work/random.lua" > "$work/run.lua"
wrk -t1 -c64 -d60s -s "$work/run.lua" http://127.0.0.1:8080 > /dev/null 2>&1 &
load=$!
rss=""
for _ in $(seq 1 12); do
  sleep 5
  rss="$rss $(ps -o rss= -p $server | tr -d ' ')"
done
wait $load || true
echo "RSS:$rss"
kill -TERM $server
wait $server || true
