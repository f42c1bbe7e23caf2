#!/usr/bin/env bash
# The Handle protocol against the reference (CNRI's HANDLE.NET 9.2, ../shared/reference/cnri):
# its client resolves from `hdl serve --handle-bind` over TCP and UDP and gets exactly the
# stored values; `hdl resolve --server` against its server gets exactly what its own client
# gets; `hdl serve --upstream` in front of its server serves what its client gets (P13).
# Handles with many values (many datagrams), type filters, values that are not text,
# handles that do not exist; the UDP limits (N14) as the reference client meets them.
#
#   bash net/reference/run.sh [path/to/hdl]
#
# Skips, saying so, where Java or the reference is missing; installs the Debian packages
# the reference needs when it can.
set -euo pipefail
cd "$(dirname "$0")/../.."
root=$PWD
ref=$root/../shared/reference/cnri
hdl=${1:-$root/target/debug/hdl}
if ! command -v java >/dev/null; then echo "net/reference/run.sh: skipped: no java here"; exit 0; fi
if [ ! -f "$ref/handle-ref-9.2.0.jar" ]; then echo "net/reference/run.sh: skipped: no reference at $ref"; exit 0; fi
jars=(gson commons-codec bcprov bcpkix servlet-api)
missing=0
for j in "${jars[@]}"; do [ -f "/usr/share/java/$j.jar" ] || missing=1; done
if [ $missing = 1 ]; then
  if command -v apt-get >/dev/null && [ "$(id -u)" = 0 ]; then
    apt-get install -y -qq libgoogle-gson-java libcommons-codec-java libbcprov-java libbcpkix-java libservlet-api-java >/dev/null 2>&1 || true
  fi
  for j in "${jars[@]}"; do
    [ -f "/usr/share/java/$j.jar" ] || { echo "net/reference/run.sh: skipped: /usr/share/java/$j.jar missing"; exit 0; }
  done
fi
[ -x "$hdl" ] || cargo build -q -p handle-cli
CP=$ref/oracle-harness.jar:$ref/handle-ref-9.2.0.jar:$ref/cnriutil-2.0.jar
for j in "${jars[@]}"; do CP=$CP:/usr/share/java/$j.jar; done
work=$(mktemp -d)
pids=()
cleanup() { for p in "${pids[@]}"; do kill -9 "$p" 2>/dev/null || true; wait "$p" 2>/dev/null || true; done; rm -rf "$work"; }
trap cleanup EXIT
free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
records=$root/net/reference/records.jsonl
handles=(TEST/1 TEST/large TEST/bin)
fail=0
check() { # name, expected, actual
  if [ "$2" = "$3" ]; then echo "  ok    $1"; else echo "  DIFF  $1"; echo "    reference: $2" | cut -c1-300; echo "    ours:      $3" | cut -c1-300; fail=1; fi
}
# What a line of ServerKit json holds, compared: index, type and data of each value, by index.
norm_ref() { python3 -c '
import json,sys
text=sys.stdin.read().strip()
if not text: print("no answer"); sys.exit()
r=json.loads(text)
print(json.dumps(sorted([(v["index"],v["type"],v["hex"]) for v in r.get("values",[])])), r["responseCode"])'; }
norm_ours() { python3 -c '
import json,sys,base64
text=sys.stdin.read().strip()
if not text: print("no answer"); sys.exit()
r=json.loads(text)
def hexof(d):
    f=d["format"]
    if f=="string": return d["value"].encode().hex()
    if f=="base64": return base64.b64decode(d["value"]).hex()
    if f=="hex": return d["value"].lower()
    if f=="admin":
        a=d["value"]; h=a["handle"].encode()
        return (int(a["permissions"],2).to_bytes(2,"big")+len(h).to_bytes(4,"big")+h+a["index"].to_bytes(4,"big")).hex()
    return None
print(json.dumps(sorted([(v["index"],v["type"],hexof(v["data"])) for v in r.get("values",[])])), r["responseCode"])'; }

echo "== the reference's server, our client (hdl resolve --server)"
port=$(free_port)
java -cp "$CP" ServerKit setup "$work/ref" "$port" >/dev/null
java -cp "$CP" ServerKit seed "$work/ref" "$records" >/dev/null 2>&1
java -Xmx200M -cp "$CP" net.handle.server.Main "$work/ref" >"$work/ref.log" 2>&1 &
pids+=($!)
for _ in $(seq 1 60); do java -cp "$CP" ServerKit json "$work/ref" TEST/1 tcp >/dev/null 2>&1 && break; sleep 0.5; done
for h in "${handles[@]}"; do
  for t in tcp udp; do
    expected=$(java -cp "$CP" ServerKit json "$work/ref" "$h" "$t" 2>/dev/null | tail -1 | norm_ref || true)
    actual=$("$hdl" resolve --server "127.0.0.1:$port" --$t --json --id "$h" 2>/dev/null | norm_ours || true)
    check "$h over $t" "$expected" "$actual"
  done
  expected=$(java -cp "$CP" ServerKit json "$work/ref" "$h" tcp URL 2>/dev/null | tail -1 | norm_ref || true)
  actual=$("$hdl" resolve --server "127.0.0.1:$port" --tcp --json --type URL --id "$h" 2>/dev/null | norm_ours || true)
  check "$h, type URL" "$expected" "$actual"
done
# Certified answers (N13): the reference's signature checked by our client, with the key
# the reference's site info gives; over both transports, a large answer too.
for h in TEST/1 TEST/large; do
  for t in tcp udp; do
    expected=$(java -cp "$CP" ServerKit json "$work/ref" "$h" "$t" 2>/dev/null | tail -1 | norm_ref || true)
    actual=$("$hdl" resolve --server "127.0.0.1:$port" --$t --cert --json --id "$h" 2>"$work/cert.err" | norm_ours || true)
    check "$h over $t, certified and verified" "$expected" "$actual"
  done
done

echo "== hdl serve --upstream in front of the reference's server (SPEC P13)"
# The REST API's answer for a path (its body whatever the status), and the status.
fetch() { python3 -c '
import sys, urllib.request, urllib.error
try:
    r = urllib.request.urlopen(sys.argv[1]); print(r.read().decode())
except urllib.error.HTTPError as e:
    print(e.read().decode())' "$1"; }
status() { python3 -c '
import sys, urllib.request, urllib.error
class No(urllib.request.HTTPRedirectHandler):
    def redirect_request(self, *a): return None
try:
    print(urllib.request.build_opener(No).open(sys.argv[1]).status)
except urllib.error.HTTPError as e:
    print(e.code)' "$1"; }
up=$(free_port)
"$hdl" serve --upstream --server "127.0.0.1:$port" --store "$work/up.redb" --bind "127.0.0.1:$up" --quiet >"$work/up.log" 2>&1 &
pids+=($!)
for _ in $(seq 1 60); do grep -qs "listening on" "$work/up.log" && break; sleep 0.2; done
for h in "${handles[@]}"; do
  expected=$(java -cp "$CP" ServerKit json "$work/ref" "$h" tcp 2>/dev/null | tail -1 | norm_ref || true)
  actual=$(fetch "http://127.0.0.1:$up/api/handles/$h" | norm_ours || true)
  check "$h through hdl serve --upstream" "$expected" "$actual"
done
check "TEST/1 redirects through hdl serve --upstream" 302 "$(status "http://127.0.0.1:$up/TEST/1")"
# A value changed in the reference's server (its record seeded again while it was stopped):
# what was kept until its TTL ends, the server's at once with auth, and that kept (P13).
location() { python3 -c '
import sys, urllib.request, urllib.error
class No(urllib.request.HTTPRedirectHandler):
    def redirect_request(self, *a): return None
try:
    print(urllib.request.build_opener(No).open(sys.argv[1]).headers.get("Location"))
except urllib.error.HTTPError as e:
    print(e.headers.get("Location"))' "$1"; }
check "TEST/1's URL, kept" "https://example.org/" "$(location "http://127.0.0.1:$up/TEST/1")"
{ kill -9 "${pids[0]}"; wait "${pids[0]}"; } 2>/dev/null || true
python3 -c '
import json,sys
for line in open(sys.argv[1]):
    r=json.loads(line)
    if r["handle"]=="TEST/1":
        r["values"][0]["data"]["value"]="https://example.org/changed"
        print(json.dumps(r))' "$records" >"$work/changed.jsonl"
java -cp "$CP" ServerKit seed "$work/ref" "$work/changed.jsonl" >/dev/null 2>&1
java -Xmx200M -cp "$CP" net.handle.server.Main "$work/ref" >"$work/ref2.log" 2>&1 &
pids[0]=$!
for _ in $(seq 1 60); do java -cp "$CP" ServerKit json "$work/ref" TEST/1 tcp 2>/dev/null | grep -q changed && break; sleep 0.5; done
check "TEST/1 changed in the reference's server: the kept URL until its TTL ends" "https://example.org/" "$(location "http://127.0.0.1:$up/TEST/1")"
check "TEST/1 with auth: the server's new URL" "https://example.org/changed" "$(location "http://127.0.0.1:$up/TEST/1?auth")"
check "TEST/1 after auth: the new URL kept" "https://example.org/changed" "$(location "http://127.0.0.1:$up/TEST/1")"
# cert (P13, N13): the reference's certified answer, checked by the key its site info gives.
check "TEST/1 with cert: the reference's signed answer, verified" "https://example.org/changed" "$(location "http://127.0.0.1:$up/TEST/1?cert")"
# The reference's server stopped: what was fetched still answers; what was not is a 500.
{ kill -9 "${pids[0]}"; wait "${pids[0]}"; } 2>/dev/null || true
check "TEST/1, fetched before the reference stopped" 302 "$(status "http://127.0.0.1:$up/TEST/1")"
check "TEST/2, not fetched, the reference stopped" "500 2" "$(status "http://127.0.0.1:$up/TEST/2") $(fetch "http://127.0.0.1:$up/api/handles/TEST/2" | python3 -c 'import json,sys; print(json.load(sys.stdin)["responseCode"])')"

echo "== our server (hdl serve --handle-bind), the reference's client"
port=$(free_port)
# (No cap on UDP answers here: the reference's client gets every answer over UDP as from
# the reference's server; the limits are checked below.)
"$hdl" serve --records "$records" --store "$work/ours.redb" --bind 127.0.0.1:0 --handle-bind "127.0.0.1:$port" --udp-max-datagrams 0 --quiet >"$work/ours.log" 2>&1 &
pids+=($!)
for _ in $(seq 1 60); do grep -q "handle protocol on" "$work/ours.log" && break; sleep 0.2; done
java -cp "$CP" ServerKit siteinfo "$work/client" "$port" >/dev/null
# What the records file holds of a handle that anyone may read (N9), as our JSON writes it.
from_file() { python3 -c '
import json,sys
h=sys.argv[1]
for line in open(sys.argv[2]):
    r=json.loads(line)
    if r["handle"]==h:
        r["values"]=[v for v in r["values"] if v.get("permissions","1110")[-2]=="1"]
        print(json.dumps(r)); break
else: print(json.dumps({"responseCode":100,"handle":h}))' "$1" "$records"; }
for h in "${handles[@]}" TEST/none; do
  for t in tcp udp; do
    expected=$(from_file "$h" | norm_ours)
    actual=$(java -cp "$CP" ServerKit json "$work/client" "$h" "$t" 2>/dev/null | tail -1 | norm_ref || true)
    check "$h over $t (reference client)" "$expected" "$actual"
  done
done
echo "== certified answers from our server, checked by the reference's client with the key in our site record"
"$hdl" serve siteinfo --handle-bind "127.0.0.1:$port" --store "$work/ours.redb" >"$work/oursite.json"
if javac -cp "$CP" -d "$work" "$root/net/reference/CertCheck.java" 2>"$work/javac.log"; then
  for t in tcp udp; do
    said=$(java -cp "$CP:$work" CertCheck "$work/oursite.json" TEST/1 "$t" 2>&1 | tail -1)
    check "TEST/1 over $t, certified" "code 1 verified" "$said"
  done
else
  echo "  skipped: javac failed: $(head -3 "$work/javac.log")"
fi
for t in tcp udp; do
  actual=$("$hdl" resolve --server "127.0.0.1:$port" --$t --cert --json --id TEST/1 2>/dev/null | norm_ours || true)
  check "TEST/1 over $t, certified, checked by our client" "$(from_file TEST/1 | norm_ours)" "$actual"
done

echo "== our server's UDP limits (N14), met by the reference's client"
if javac -cp "$CP" -d "$work" "$root/net/reference/LimitCheck.java" 2>"$work/javac.log"; then
  limited() { # name, the server's flags...
    local name=$1; shift
    local p; p=$(free_port)
    "$hdl" serve --records "$records" --store "$work/$name.redb" --bind 127.0.0.1:0 --handle-bind "127.0.0.1:$p" --quiet --udp-limit-loopback "$@" >"$work/$name.log" 2>&1 &
    pids+=($!)
    for _ in $(seq 1 60); do grep -qs "handle protocol on" "$work/$name.log" && break; sleep 0.2; done
    "$hdl" serve siteinfo --handle-bind "127.0.0.1:$p" --store "$work/$name.redb" >"$work/$name.json"
  }
  ask() { java -cp "$CP:$work" LimitCheck "$work/$1.json" "$2" "$3" "$4" 2>&1 | tail -1; }
  # The defaults: 60 values of 200 bytes take more than 4 datagrams.
  limited defaults
  check "TEST/large over udp: too large" "failed: too large for UDP: ask over TCP" "$(ask defaults TEST/large udp 1)"
  check "TEST/large over tcp" "1 answered, code 1, 60 values, slowest under 500 ms" "$(ask defaults TEST/large tcp 1)"
  check "TEST/large as the client chooses: to TCP at once" "1 answered, code 1, 60 values, slowest under 500 ms" "$(ask defaults TEST/large any 1)"
  # A budget of one answer a second: over it, every answer sends the client to TCP at once...
  limited slip1 --udp-answers-per-second 1 --udp-burst 1 --udp-slip 1
  check "TEST/1 20 times over budget, slip 1" "20 answered, code 1, 4 values, slowest under 500 ms" "$(ask slip1 TEST/1 any 20)"
  # ...where dropped answers keep it waiting for its UDP retries (which is why some slip).
  limited slip0 --udp-answers-per-second 1 --udp-burst 1 --udp-slip 0
  check "TEST/1 twice over budget, slip 0" "2 answered, code 1, 4 values, slowest over 500 ms" "$(ask slip0 TEST/1 any 2)"
else
  echo "  skipped: javac failed: $(head -3 "$work/javac.log")"
fi
exit $fail
