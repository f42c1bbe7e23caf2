#!/usr/bin/env bash
# udp-floor.sh HDL_BINARY [seconds=8] [rounds=1]: CPU per UDP resolution of the reference server, of
# `HDL serve --handle-bind`, and of the floor (benches/udp-floor.c: captured answers sent back, nothing else;
# with recvmmsg/sendmmsg, and with io_uring), all holding the same 1,000 handles and loaded in turns the way
# ../shared/reference/hsload/compare.sh loads them (16 outstanding, generator on cpu 0, servers on cpu 1; a
# server's user + system CPU over the window divided by its answers). The floor is what the kernel's UDP path
# costs an answer on this machine: the reference's figure over it is the most any server here can be ahead.
# FLOOR_MODES (default "mmsg uring"): the floors to run; `uring:coop` and `uring:none` run io_uring's task work
# sooner than the default (see udp-floor.c). Needs java, gcc and liburing-dev (installed with apt-get when
# missing, or the io_uring floor is skipped). Takes about a minute a server a round. HSLOAD_PROTO=tcp loads
# them over TCP instead, a connection a request (the floor's TCP side is the same whatever its mode).
set -u
[ $# -ge 1 ] || { sed -n 2,10p "$0"; exit 2; }
HDL=$(cd "$(dirname "$1")" && pwd)/$(basename "$1"); secs=${2:-8}; rounds=${3:-1}
here=$(cd "$(dirname "$0")" && pwd)
H="$here/../../shared/reference/hsload"; C="$H/../cnri"
[ -x "$H/run.sh" ] || { echo "udp-floor.sh: skipped, no hsload at $H"; exit 0; }
REF_CP="$C/oracle-harness.jar:$C/handle-ref-9.2.0.jar:$C/cnriutil-2.0.jar:/usr/share/java/gson.jar:/usr/share/java/commons-codec.jar:/usr/share/java/bcprov.jar:/usr/share/java/bcpkix.jar:/usr/share/java/servlet-api.jar"
freeport() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
waitport() { for i in $(seq 1 300); do python3 -c 'import socket,sys; socket.create_connection(("127.0.0.1",int(sys.argv[1])),0.2)' "$1" 2>/dev/null && return 0; sleep 0.1; done; return 1; }
t=$(mktemp -d); pids=()
trap 'for p in "${pids[@]}"; do kill -9 "$p" 2>/dev/null; done; rm -rf "$t"' EXIT
pin=(); pin_gen=""; [ "$(nproc)" -ge 2 ] && { pin=(taskset -c 1); pin_gen=0; }
[ -f /usr/include/liburing.h ] || apt-get install -y -qq liburing-dev >/dev/null 2>&1
uring=(-luring -DWITH_URING); [ -f /usr/include/liburing.h ] || { uring=(); echo "udp-floor.sh: no liburing, the io_uring floor skipped"; }
gcc -O2 -Wall -pthread -o "$t/udp-floor" "$here/udp-floor.c" "${uring[@]}" || exit 1
python3 "$H/gen_records.py" 1000 --handles "$t/handles.txt" > "$t/records.jsonl"
"$H/run.sh" --setup-only 2>/dev/null
rp=$(freeport)
java -cp "$REF_CP" ServerKit setup "$t/ref" "$rp" >/dev/null 2>&1 && java -cp "$REF_CP" ServerKit seed "$t/ref" "$t/records.jsonl" >/dev/null 2>&1 || { echo "reference setup failed"; exit 1; }
sed -i 's/"log_accesses" = "yes"/"log_accesses" = "no"/' "$t/ref/config.dct"
"${pin[@]}" java -Xmx200M -cp "$REF_CP" net.handle.server.Main "$t/ref" >"$t/ref.log" 2>&1 </dev/null & rpid=$!; pids+=($rpid)
waitport "$rp" || { echo "reference server did not listen"; exit 1; }
hp=$(freeport); np=$(freeport)
"${pin[@]}" "$HDL" serve --records "$t/records.jsonl" --store "$t/store.redb" --bind "127.0.0.1:$hp" --handle-bind "127.0.0.1:$np" >"$t/serve.log" 2>&1 & spid=$!; pids+=($spid)
waitport "$np" || { echo "hdl serve --handle-bind did not listen"; tail -3 "$t/serve.log"; exit 1; }
export HSLOAD_WORK="$t/work" HSLOAD_CPUS="$pin_gen"
# The floor answers what hdl serve answered the reference client (its capture).
HSLOAD_WARMUP=0 "$H/run.sh" "127.0.0.1:$np" "$t/handles.txt" 1 1 >/dev/null 2>"$t/capture.err" || { echo "capture failed"; cat "$t/capture.err"; exit 1; }
cap=$(ls "$t"/work/capture.*.tsv | head -1)
servers=("reference $rp $rpid" "hdl $np $spid")
for mode in ${FLOOR_MODES:-mmsg ${uring:+uring}}; do
  fp=$(freeport)
  FLOOR_URING_FLAGS=${mode#*:} "${pin[@]}" "$t/udp-floor" "${mode%%:*}" "$fp" "$cap" 2>>"$t/floor.log" & fpid=$!; pids+=($fpid)
  servers+=("floor-$mode $fp $fpid")
done
sleep 0.5
ticks() { awk '{print $14 + $15}' "/proc/$1/stat"; }
measure() { # NAME PORT PID
  HSLOAD_WARMUP=2 "$H/run.sh" "127.0.0.1:$2" "$t/handles.txt" 2 16 >/dev/null 2>"$t/$1.warm" || { echo "$1: capture or warm-up failed"; cat "$t/$1.warm"; return 1; }
  local a b line; a=$(ticks "$3")
  line=$(HSLOAD_WARMUP=0 "$H/run.sh" "127.0.0.1:$2" "$t/handles.txt" "$secs" 16 2>"$t/$1.err"); b=$(ticks "$3")
  python3 -c 'import os,re,sys; ok=int((re.search(r"ok (\d+)",sys.argv[4]) or [0,0])[1]); us=(int(sys.argv[3])-int(sys.argv[2]))/os.sysconf("SC_CLK_TCK")*1e6; print(f"{sys.argv[1]:15s}", f"{us/ok:.2f}" if ok else "inf", "us CPU per resolution |", sys.argv[4])' "$1" "$a" "$b" "$line"
}
for r in $(seq 1 "$rounds"); do
  echo "round $r"
  for s in "${servers[@]}"; do measure $s || exit 1; done
done
