#!/usr/bin/env bash
# The live differential: hdl serve and the reference proxy (CNRI's proxy servlet, ../shared/reference/cnri-proxy,
# run offline) asked the same requests on the same records, with the reference's own proxy_diff.py: the records and
# requests of serve/tests/parity, those of the reference's examples, and records and requests generate.py makes from a
# seed (SEED, default: the date's day of the year; a choice the reference makes at random can differ there, and is
# said). Every request must agree but those answered otherwise on purpose (DECISIONS in serve/tests/parity.rs, each
# with its SPEC rule).
#
#   bash serve/tests/parity/live.sh [path/to/hdl]
#
# Skips, saying so, where Java, python3 or the reference is missing (proxy_setup installs the Debian packages the
# reference needs when it can). Exit status: 0 all agree (or skipped), 1 a difference, 2 a failure to run.
set -uo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/../../.." && pwd)
ref=${CNRI_PROXY:-$root/../shared/reference/cnri-proxy}
hdl=${1:-$root/target/debug/hdl}
say() { echo "serve/tests/parity/live.sh: $*"; }
command -v java >/dev/null || { say "skipped: no java here"; exit 0; }
command -v python3 >/dev/null || { say "skipped: no python3 here"; exit 0; }
[ -f "$ref/reference-proxy.sh" ] || { say "skipped: no reference proxy at $ref"; exit 0; }
# shellcheck source=/dev/null
source "$ref/reference-proxy.sh"
proxy_setup >/dev/null 2>&1 || { say "skipped: the reference proxy's jars are missing and could not be installed"; exit 0; }
[ -x "$hdl" ] || (cd "$root" && cargo build -q -p handle-cli) || exit 2
work=$(mktemp -d -t parity-live.XXXXXX)
serve_pid=
cleanup() {
  [ -n "$serve_pid" ] && kill "$serve_pid" 2>/dev/null && wait "$serve_pid" 2>/dev/null
  proxy_stop
  rm -rf "$work"
}
trap cleanup EXIT
# The requests answered otherwise on purpose: the decisions of the replayed test.
grep -o '("[A-Z]* [^"]*", "[A-Z][0-9]*")' "$root/serve/tests/parity.rs" | sed 's/^("\([^"]*\)".*/\1/' > "$work/decided"
fail=0
compare() { # RECORDS REQUESTS NAME [proxy_diff options]
  local records=$1 requests=$2 name=$3 port
  shift 3
  port=$(freeport)
  "$hdl" serve --quiet --records "$records" --store "$work/$name.redb" --bind "127.0.0.1:$port" 2>"$work/$name.log" &
  serve_pid=$!
  proxy_wait_port "$port" 50 || { say "hdl serve did not start: $(cat "$work/$name.log")"; exit 2; }
  "$ref/diff-against.sh" "http://127.0.0.1:$port" "$records" "$requests" --ignore-messages --headers expires,vary "$@" \
    > "$work/$name.diff" 2>"$work/$name.err"
  kill "$serve_pid"; wait "$serve_pid" 2>/dev/null; serve_pid=
  local differ
  differ=$(grep '^DIFFER' "$work/$name.diff" | sed 's/^DIFFER  //' | grep -vxF -f "$work/decided" || true)
  say "$name: $(tail -1 "$work/$name.diff") ($(grep -c '^DIFFER' "$work/$name.diff") differ, of which $(echo -n "$differ" | grep -c . || true) not decided)"
  if [ -n "$differ" ]; then
    fail=1
    grep -A1 -F -f <(echo "$differ" | sed 's/^/DIFFER  /') "$work/$name.diff"
  fi
}
compare "$here/records.jsonl" "$here/requests.txt" parity
compare "$ref/examples/records.jsonl" "$ref/examples/requests.txt" examples --ignore-timestamps
seed=${SEED:-$(date +%j)}
python3 "$here/generate.py" "$seed" 40 "$work/generated" || exit 2
records=$work/generated/records.jsonl
port=$(freeport)
"$hdl" serve --quiet --records "$records" --store "$work/generated.redb" --bind "127.0.0.1:$port" 2>"$work/generated.log" &
serve_pid=$!
proxy_wait_port "$port" 50 || { say "hdl serve did not start: $(cat "$work/generated.log")"; exit 2; }
# (A loaded machine can keep the reference from listening in time: tried twice, then this
# part is skipped, saying so; a start is no verdict on hdl serve.)
started=
for attempt in 1 2; do
  if proxy_start "$work/ref$attempt" "$(freeport)" "$records" >"$work/start$attempt.log" 2>&1; then started=1; break; fi
  proxy_stop
done
if [ -z "$started" ]; then
  say "generated: skipped: the reference proxy did not start (twice): $(tail -1 "$work/start2.log")"
  exit $fail
fi
python3 "$ref/proxy_diff.py" "$PROXY_URL" "http://127.0.0.1:$port" "$work/generated/requests.txt" --ignore-messages \
  --headers expires,vary --json > "$work/generated.diff"
if python3 "$here/random_choices.py" "$PROXY_URL" < "$work/generated.diff" > "$work/generated.left"; then
  say "generated (seed $seed): $(grep -c '"agree": true' "$work/generated.diff") of $(grep -c '^{' "$work/generated.diff") agree, $(grep -c '^random' "$work/generated.left") more are choices the reference makes at random"
else
  say "generated (seed $seed): differences"
  grep -v '^random' "$work/generated.left"
  fail=1
fi
proxy_stop
exit $fail
