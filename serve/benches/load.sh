#!/usr/bin/env bash
# The load benchmark of `hdl serve` (BENCHMARKS.md): 1 million records imported into a new
# store (time), the server started on it (time to listening), then wrk on loopback with 64
# connections against /api/handles/<handle> and against redirects (handles at random over
# the million), and against the floor: a minimal server on the same stack answering one
# fixed redirect. Then 60 s of load with the server's memory sampled every 5 s.
# Needs wrk (apt-get install wrk). Run on a quiet machine, nothing else running.
#
#   bash serve/benches/load.sh [RECORDS] [SECONDS] [CACHE_MIB]
set -euo pipefail
cd "$(dirname "$0")/../.."
n=${1:-1000000}
secs=${2:-30}
cache=${3:-64}
work=$(mktemp -d)
trap 'kill $(jobs -p) 2>/dev/null || true; rm -rf "$work"' EXIT
cargo build --release -q -p handle-cli -p handle-serve --examples --bin hdl
bin=target/release
$bin/examples/records "$n" > "$work/records.jsonl"
echo "records: $n, $(du -h "$work/records.jsonl" | cut -f1), page cache $cache MiB"

start=$(date +%s.%N)
$bin/hdl serve import --records "$work/records.jsonl" --store "$work/store.redb" 2>&1
end=$(date +%s.%N)
echo "import: $(awk "BEGIN{printf \"%.3f\", $end - $start}") s, store $(du -h "$work/store.redb" | cut -f1)"

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
math.randomseed(42)
request = function()
  return wrk.format("GET", string.format(prefix .. "20.1000/%d", math.random(0, $n - 1)))
end
LUA
# The Lua script reads `prefix`; set it per run.
bench() { # name, prefix, url
  sed "1s|^|prefix = \"$2\"\n|" "$work/random.lua" > "$work/run.lua"
  echo "== $1"
  wrk -t1 -c64 -d"${secs}s" --latency -s "$work/run.lua" "$3" 2>&1 | grep -E "Requests/sec|Latency  | 50%| 99%|Non-2xx|Socket errors" || true
}
bench "hdl serve: /api/handles/<handle>" "/api/handles/" http://127.0.0.1:8080
bench "hdl serve: /<handle> (302 redirect)" "/" http://127.0.0.1:8080

$bin/examples/floor 127.0.0.1:8081 2> "$work/floor.log" &
floor=$!
listening "$work/floor.log"
bench "floor: fixed redirect, same stack" "/" http://127.0.0.1:8081
kill $floor

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
