#!/usr/bin/env bash
# `hdl serve --upstream` (SPEC P13) against `hdl serve` on a store (BENCHMARKS.md): RECORDS
# records imported into server A, which also answers the Handle protocol; server B holds
# nothing and asks A's protocol port. Then:
#   - cold misses: each of 2,000 handles asked of B once (B asks A), one at a time, against
#     the same handles asked again of B (kept) and of A (stored): latency per request;
#   - 1,000 requests at once for one handle of a server C like B with nothing kept: the
#     queries C sent (from its log at stop);
#   - every handle asked of B once (all kept), then wrk on loopback with 64 connections
#     against redirects of A (stored) and of B (kept), in turns, ROUNDS rounds of SECONDS.
# Needs wrk (apt-get install wrk) and python3. Run on a quiet machine.
#
#   bash serve/benches/upstream.sh [RECORDS] [SECONDS] [ROUNDS]
set -euo pipefail
cd "$(dirname "$0")/../.."
n=${1:-20000}
secs=${2:-5}
rounds=${3:-6}
command -v wrk >/dev/null || { echo "upstream.sh: needs wrk (apt-get install wrk)"; exit 2; }
work=$(mktemp -d)
trap 'kill $(jobs -p) 2>/dev/null || true; rm -rf "$work"' EXIT
cargo build --release -q -p handle-cli -p handle-serve --examples --bin hdl
bin=target/release
$bin/examples/records "$n" > "$work/records.jsonl"
listening() { for _ in $(seq 1 1000); do grep -q "listening on" "$1" 2>/dev/null && return 0; sleep 0.01; done; return 1; }
$bin/hdl serve --records "$work/records.jsonl" --store "$work/a.redb" --bind 127.0.0.1:8280 \
  --handle-bind 127.0.0.1:8641 --quiet 2> "$work/a.log" &
listening "$work/a.log"
$bin/hdl serve --upstream --server 127.0.0.1:8641 --store "$work/b.redb" --bind 127.0.0.1:8281 \
  --upstream-cache-entries $((n + 1000)) --upstream-cache-mib 512 --quiet 2> "$work/b.log" &
listening "$work/b.log"

python3 - "$n" <<'PY'
import http.client, statistics, sys, time
n = int(sys.argv[1])
def timed(port, handles):
    c = http.client.HTTPConnection("127.0.0.1", port)
    out = []
    for h in handles:
        t = time.perf_counter()
        c.request("GET", "/20.1000/%d" % h)
        r = c.getresponse(); r.read()
        out.append((time.perf_counter() - t) * 1e3)
        assert r.status == 302, r.status
    return out
def show(name, ms):
    ms = sorted(ms)
    print("%-42s p50 %.3f ms  p99 %.3f ms  mean %.3f ms" % (name, ms[len(ms) // 2], ms[len(ms) * 99 // 100], statistics.mean(ms)))
handles = list(range(0, n, max(1, n // 2000)))[:2000]
cold = timed(8281, handles)
kept = timed(8281, handles)
stored = timed(8280, handles)
show("B, cold miss (asks A over TCP)", cold)
show("B, kept", kept)
show("A, stored", stored)
print("cold - kept, per handle: p50 %.3f ms" % sorted(c - k for c, k in zip(cold, kept))[len(cold) // 2])
# Every handle kept in B before the load.
timed(8281, range(n))
PY

$bin/hdl serve --upstream --server 127.0.0.1:8641 --store "$work/c.redb" --bind 127.0.0.1:8282 \
  2> "$work/c.log" &
c=$!
listening "$work/c.log"
python3 - <<'PY'
import http.client, threading
go = threading.Barrier(1000)
statuses = []
def ask():
    c = http.client.HTTPConnection("127.0.0.1", 8282, timeout=30)
    c.connect()
    go.wait()
    c.request("GET", "/20.1000/7")
    r = c.getresponse(); r.read()
    statuses.append(r.status)
threads = [threading.Thread(target=ask) for _ in range(1000)]
for t in threads: t.start()
for t in threads: t.join()
print("1,000 requests at once for one handle: %d answered 302" % statuses.count(302))
PY
kill -TERM $c; wait $c || true
grep "upstream queries" "$work/c.log" | sed 's/^hdl serve: /C at stop: /'

cat > "$work/random.lua" <<LUA
request = function()
  return wrk.format("GET", string.format("/20.1000/%d", math.random(0, $n - 1)))
end
LUA
run() { # port -> requests per second
  wrk -t1 -c64 -d"${secs}s" -s "$work/random.lua" "http://127.0.0.1:$1" 2>&1 | awk '
    /Requests\/sec/ { rps = $2 } /Non-2xx|Socket errors/ { print "wrk: " $0 > "/dev/stderr" }
    END { printf "%d\n", rps }'
}
: > "$work/rounds"
for round in $(seq 0 "$rounds"); do
  if [ $((round % 2)) -eq 0 ]; then a=$(run 8280); b=$(run 8281); else b=$(run 8281); a=$(run 8280); fi
  echo "round $round: stored $a | kept upstream $b"
  [ "$round" -gt 0 ] && echo "$a $b" >> "$work/rounds"
done
median() { awk -v c="$1" '{ print $c }' "$work/rounds" | sort -n | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
a=$(median 1); b=$(median 2)
echo "== redirects: stored $a, kept upstream $b requests/s (medians of $rounds rounds): $(awk "BEGIN{printf \"%.3f\", $b / $a}")"
