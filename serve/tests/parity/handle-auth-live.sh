#!/usr/bin/env bash
# The Handle authorisation scheme (SPEC W3) against the reference's own authentication, live
# and offline: CNRI's StandardHandleAuthenticationFilter in front of the reference proxy's web
# application (HandleAuthLauncher), verifying through its resolver against a reference handle
# server (../shared/reference/cnri-proxy) that holds an HS_PUBKEY; and hdl serve on the same
# records. handle_auth_diff.py asks both the same challenges and answers, signed with openssl;
# then `hdl create --key`'s flow is run against both.
#
#   bash serve/tests/parity/handle-auth-live.sh [path/to/hdl]
#
# Skips, saying so, without Java, javac, python3, openssl or the reference. Exit status: 0
# all agree or differ as decided (or skipped), 1 a difference, 2 a failure to run.
set -uo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/../../.." && pwd)
ref=${CNRI_PROXY:-$root/../shared/reference/cnri-proxy}
hdl=${1:-$root/target/debug/hdl}
say() { echo "serve/tests/parity/handle-auth-live.sh: $*"; }
for tool in java javac python3 openssl; do
  command -v "$tool" >/dev/null || { say "skipped: no $tool here"; exit 0; }
done
[ -f "$ref/reference-proxy.sh" ] || { say "skipped: no reference proxy at $ref"; exit 0; }
# shellcheck source=/dev/null
source "$ref/reference-proxy.sh"
proxy_setup >/dev/null 2>&1 || { say "skipped: the reference proxy's jars are missing and could not be installed"; exit 0; }
[ -x "$hdl" ] || (cd "$root" && cargo build -q -p handle-cli) || exit 2
work=$(mktemp -d -t handle-auth-live.XXXXXX)
serve_pid= launcher_pid=
cleanup() {
  [ -n "$serve_pid" ] && kill "$serve_pid" 2>/dev/null && wait "$serve_pid" 2>/dev/null
  [ -n "$launcher_pid" ] && kill -9 "$launcher_pid" 2>/dev/null && wait "$launcher_pid" 2>/dev/null
  proxy_stop
  rm -rf "$work"
}
trap cleanup EXIT

# Two RSA keys; the first's public key is 4263537/KEYS's HS_PUBKEY at index 300, written as
# HS_PUBKEY data (type, flags, exponent, modulus, as Java writes its numbers); and a secret
# key, `s3cret`, its HS_SECKEY at index 301.
for k in key other; do
  openssl genpkey -algorithm RSA -pkeyopt rsa_keygen_bits:2048 -out "$work/$k.pem" 2>/dev/null || exit 2
done
modulus=$(openssl rsa -in "$work/key.pem" -noout -modulus 2>/dev/null | cut -d= -f2)
records=$work/records.jsonl
cp "$ref/examples/records.jsonl" "$records"
python3 - "$modulus" >>"$records" <<'PY' || exit 2
import base64, json, struct, sys
def field(b): return struct.pack(">I", len(b)) + b
def java(n):
    b = n.to_bytes((n.bit_length() + 7) // 8, "big")
    return b"\0" + b if b[0] & 0x80 else b
data = field(b"RSA_PUB_KEY") + b"\0\0" + field(java(65537)) + field(java(int(sys.argv[1], 16)))
print(json.dumps({"responseCode": 1, "handle": "4263537/KEYS", "values": [
    {"index": 300, "type": "HS_PUBKEY", "data": {"format": "base64", "value": base64.b64encode(data).decode()}},
    {"index": 301, "type": "HS_SECKEY", "data": {"format": "string", "value": "s3cret"}, "permissions": "1100"}]}))
PY

proxy_start "$work/p" "$(freeport)" "$records" >"$work/proxy.log" 2>&1 || { say "the reference did not start"; cat "$work/proxy.log"; exit 2; }
mkdir -p "$work/classes"
javac -d "$work/classes" -cp "$PROXY_CP" "$here/HandleAuthLauncher.java" 2>"$work/javac.log" || { say "HandleAuthLauncher does not compile"; cat "$work/javac.log"; exit 2; }
aport=$(freeport)
(cd "$work/p" && exec java -Xmx256M -Duser.home="$work/p" -Dnet.handle.configDir="$work/p/hdlcfg" \
  -cp "$PROXY_CP:$work/classes" HandleAuthLauncher "$work/p/webapp" "$aport" >"$work/launcher.log" 2>&1 </dev/null) &
launcher_pid=$!
proxy_wait_port "$aport" 150 || { say "HandleAuthLauncher did not start"; cat "$work/launcher.log"; exit 2; }
sport=$(freeport)
"$hdl" serve --quiet --records "$records" --store "$work/s.redb" --bind "127.0.0.1:$sport" 2>"$work/serve.log" &
serve_pid=$!
proxy_wait_port "$sport" 50 || { say "hdl serve did not start: $(cat "$work/serve.log")"; exit 2; }

python3 "$here/handle_auth_diff.py" "http://127.0.0.1:$aport" "http://127.0.0.1:$sport" "$work/key.pem" "$work/other.pem"
status=$?

# hdl's own flow (--key): against hdl serve a write is taken or refused after the identity is
# proved; against the reference's filter the identity is proved too (no 401), and the write
# then goes to a handle server that takes no writes from a proxy offline.
for target in "reference http://127.0.0.1:$aport" "ours http://127.0.0.1:$sport"; do
  set -- $target
  for k in key other; do
    out=$("$hdl" delete 4263537/DEMO-PAGE --index 99 --server "$2" --user 300:4263537/KEYS --key "$work/$k.pem" 2>&1)
    echo "hdl delete --key $k.pem against $1: exit $?: $(echo "$out" | tr '\n' ' ' | cut -c1-200)"
  done
done
exit $status
