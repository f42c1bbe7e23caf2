"""Resolving handles over the Handle protocol from Python, against `hdl resolve` on the same
handles, in one run: `hdl serve --handle-bind` on loopback filled with N records (one to
five values each), then

- `hdl resolve --server ADDR --json` over the N handles (a process, 64 in flight);
- `handle_id.resolve_many(handles, server=ADDR)` (64 in flight, one `Record` each);
- `handle_id.resolve(h, server=ADDR)` one handle at a time, over UDP and over TCP;

each the best of 3, every answer checked against the command's.

    python python/bench_resolve.py [--records N] [--hdl target/release/hdl]
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
# The installed package, not python/handle_id/ beside this script (no native module there).
sys.path = [p for p in sys.path if Path(p or ".").resolve() != Path(__file__).resolve().parent]

import handle_id  # noqa: E402


def record(handle: str, n: int) -> str:
    values = [
        {
            "index": i,
            "type": "URL" if i == 1 else "DESC",
            "data": {"format": "string", "value": f"https://example.org/{handle}/{i}"},
            "ttl": 86400,
            "timestamp": "2020-01-01T00:00:00Z",
        }
        for i in range(1, n + 1)
    ]
    return json.dumps({"responseCode": 1, "handle": handle, "values": values})


def best(label: str, n: int, fn) -> object:
    times, value = [], None
    for _ in range(3):
        t = time.perf_counter()
        value = fn()
        times.append(time.perf_counter() - t)
    b = min(times)
    print(f"{label:52s} {b:7.3f} s  {b / n * 1e6:7.1f} µs a handle  {n / b:9,.0f} a second")
    return value


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--records", type=int, default=20000)
    ap.add_argument("--one-at-a-time", type=int, default=2000)
    ap.add_argument("--hdl", default=str(ROOT / "target" / "release" / "hdl"))
    args = ap.parse_args()
    handles = [f"BENCH/{i}" for i in range(args.records)]
    with tempfile.TemporaryDirectory() as d:
        records = Path(d) / "records.jsonl"
        records.write_text("".join(record(h, 1 + i % 5) + "\n" for i, h in enumerate(handles)))
        server = subprocess.Popen(
            [
                args.hdl, "serve", "--quiet", "--store", str(Path(d) / "store.redb"),
                "--bind", "127.0.0.1:0", "--records", str(records),
                "--handle-bind", "127.0.0.1:0",
            ],
            stderr=subprocess.PIPE,
            text=True,
        )
        try:
            addr = None
            while True:
                line = server.stderr.readline()
                if not line:
                    sys.exit("hdl serve ended")
                if line.startswith("hdl serve: handle protocol on "):
                    addr = line.split()[5]
                if line.startswith("hdl serve: listening on "):
                    break
            print(f"{args.records:,} records, one to five values each; hdl serve at {addr}")
            data = "".join(h + "\n" for h in handles).encode()

            def command():
                return subprocess.run(
                    [args.hdl, "resolve", "--server", addr, "--json"],
                    input=data, capture_output=True, check=True,
                ).stdout

            out = best("hdl resolve --server (a process, 64 in flight)", len(handles), command)
            expected = [json.loads(l) for l in out.splitlines()]
            got = best(
                "handle_id.resolve_many (64 in flight)",
                len(handles),
                lambda: handle_id.resolve_many(handles, server=addr),
            )
            assert [json.loads(r.to_json()) for r in got] == expected
            few = handles[: args.one_at_a_time]
            for transport in ["udp", "tcp"]:
                got = best(
                    f"handle_id.resolve, one at a time ({transport})",
                    len(few),
                    lambda: [handle_id.resolve(h, server=addr, transport=transport) for h in few],
                )
                assert [json.loads(r.to_json()) for r in got] == expected[: len(few)]
        finally:
            server.terminate()
            server.wait(timeout=10)


if __name__ == "__main__":
    main()
