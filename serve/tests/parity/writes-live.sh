#!/usr/bin/env bash
# The writes differential: the reference proxy's REST servlet (CNRI's HandleJsonRestApiServlet,
# ../shared/reference/cnri-proxy, offline) and hdl serve asked the same PUT and DELETE requests
# on the same records (serve/tests/parity/writes.txt), compared by writes_diff.py. Offline the
# reference takes no authenticated write (its proxy forwards writes to a handle server, and
# creating handles there needs the global root), so the requests are those decided before
# credentials are checked, and the ones without credentials, which differ as SPEC W4 says.
#
#   bash serve/tests/parity/writes-live.sh [path/to/hdl]
#
# Skips, saying so, without Java, python3 or the reference. Exit status: 0 all agree or differ
# as decided (or skipped), 1 a difference, 2 a failure to run.
set -uo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/../../.." && pwd)
ref=${CNRI_PROXY:-$root/../shared/reference/cnri-proxy}
hdl=${1:-$root/target/debug/hdl}
say() { echo "serve/tests/parity/writes-live.sh: $*"; }
command -v java >/dev/null || { say "skipped: no java here"; exit 0; }
command -v python3 >/dev/null || { say "skipped: no python3 here"; exit 0; }
[ -f "$ref/reference-proxy.sh" ] || { say "skipped: no reference proxy at $ref"; exit 0; }
# shellcheck source=/dev/null
source "$ref/reference-proxy.sh"
proxy_setup >/dev/null 2>&1 || { say "skipped: the reference proxy's jars are missing and could not be installed"; exit 0; }
[ -x "$hdl" ] || (cd "$root" && cargo build -q -p handle-cli) || exit 2
work=$(mktemp -d -t writes-live.XXXXXX)
serve_pid=
cleanup() {
  [ -n "$serve_pid" ] && kill "$serve_pid" 2>/dev/null && wait "$serve_pid" 2>/dev/null
  proxy_stop
  rm -rf "$work"
}
trap cleanup EXIT
records=$ref/examples/records.jsonl
port=$(freeport)
"$hdl" serve --quiet --records "$records" --store "$work/s.redb" --bind "127.0.0.1:$port" 2>"$work/serve.log" &
serve_pid=$!
proxy_wait_port "$port" 50 || { say "hdl serve did not start: $(cat "$work/serve.log")"; exit 2; }
proxy_start "$work/p" "$(freeport)" "$records" >"$work/proxy.log" 2>&1 || { say "the reference proxy did not start"; cat "$work/proxy.log"; exit 2; }
python3 "$here/writes_diff.py" "$PROXY_URL" "http://127.0.0.1:$port" "$here/writes.txt"
