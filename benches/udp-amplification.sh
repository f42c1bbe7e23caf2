#!/usr/bin/env bash
# UDP amplification under a flood (SPEC N14), the reference's server beside ours, on the
# records of net/reference/records.jsonl: one socket asks for TEST/large (60 values of 200
# bytes) and for TEST/1, RATE times a second for SECONDS, from loopback (our server told
# to limit loopback too), and the bytes that come back are counted
# (benches/udp-amplification.py). Then ours with no limits, for scale.
#
#   bash benches/udp-amplification.sh [RATE] [SECONDS]   (release build first)
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD; rate=${1:-5000}; secs=${2:-3}
hdl=$root/target/release/hdl
ref=$root/../shared/reference/cnri
[ -x "$hdl" ] || cargo build -q --release -p handle-cli
command -v java >/dev/null && [ -f "$ref/handle-ref-9.2.0.jar" ] || { echo "udp-amplification.sh: skipped: no java or no reference"; exit 0; }
CP=$ref/oracle-harness.jar:$ref/handle-ref-9.2.0.jar:$ref/cnriutil-2.0.jar
for j in gson commons-codec bcprov bcpkix servlet-api; do CP=$CP:/usr/share/java/$j.jar; done
work=$(mktemp -d); pids=()
trap 'for p in "${pids[@]}"; do kill -9 "$p" 2>/dev/null || true; done; rm -rf "$work"' EXIT
free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
records=$root/net/reference/records.jsonl
flood() { for h in TEST/large TEST/1; do printf '  %-10s ' "$h"; python3 "$root/benches/udp-amplification.py" "127.0.0.1:$1" "$h" "$rate" "$secs"; done; }

port=$(free_port)
java -cp "$CP" ServerKit setup "$work/ref" "$port" >/dev/null
java -cp "$CP" ServerKit seed "$work/ref" "$records" >/dev/null 2>&1
sed -i 's/"log_accesses" = "yes"/"log_accesses" = "no"/' "$work/ref/config.dct"
java -Xmx200M -cp "$CP" net.handle.server.Main "$work/ref" >"$work/ref.log" 2>&1 &
pids+=($!)
for _ in $(seq 1 60); do java -cp "$CP" ServerKit json "$work/ref" TEST/1 tcp >/dev/null 2>&1 && break; sleep 0.5; done
echo "== the reference's server"
flood "$port"
{ kill -9 "${pids[-1]}"; wait "${pids[-1]}"; } 2>/dev/null || true

ours() { # name, flags...
  local name=$1; shift
  local p; p=$(free_port)
  "$hdl" serve --records "$records" --store "$work/$name.redb" --bind 127.0.0.1:0 --handle-bind "127.0.0.1:$p" --quiet "$@" >"$work/$name.log" 2>&1 &
  pids+=($!)
  for _ in $(seq 1 60); do grep -qs "handle protocol on" "$work/$name.log" && break; sleep 0.2; done
  flood "$p"
  kill "${pids[-1]}"; sleep 0.5
  grep "over UDP" "$work/$name.log" | sed 's/^/  /' || true
}
echo "== hdl serve, its default limits (--udp-limit-loopback)"
ours limited --udp-limit-loopback
echo "== hdl serve without limits"
ours unlimited --udp-answers-per-second 0 --udp-bytes-per-second 0 --udp-max-datagrams 0
