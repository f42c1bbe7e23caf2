"""handle_id.resolve and resolve_many over the Handle protocol, against `hdl serve
--handle-bind` on loopback filled with records, and held to `hdl resolve --server` on the
same handles: the same REST API responses, filters, transports, handles not found,
handles that do not parse, and servers that are not there."""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import threading
import time
from pathlib import Path

import pytest

import handle_id

from conftest import run_hdl


def _record(handle: str, n: int) -> dict:
    values = [
        {
            "index": i,
            "type": "URL" if i == 1 else ("EMAIL" if i == 2 else "DESC"),
            "data": {"format": "string", "value": f"https://example.org/{handle}/{i}"},
            "ttl": 86400,
            "timestamp": "2020-01-01T00:00:00Z",
        }
        for i in range(1, n + 1)
    ]
    return {"responseCode": 1, "handle": handle, "values": values}


HANDLES = [f"TEST/{i}" for i in range(12)] + ["20.1000/5555", "10.1000/Ça-日本"]
# An answer too large for a datagram: the server says so over UDP, unsigned.
LARGE = "TEST/" + "x" * 1000


@pytest.fixture(scope="module")
def server(hdl: Path, tmp_path_factory) -> str:
    """`hdl serve` answering the Handle protocol from records of HANDLES: its address."""
    d = tmp_path_factory.mktemp("resolve")
    records = d / "records.jsonl"
    records.write_text(
        "".join(json.dumps(_record(h, 1 + i % 5)) + "\n" for i, h in enumerate(HANDLES))
        + json.dumps(_record(LARGE, 4)) + "\n",
        encoding="utf-8",
    )
    proc = subprocess.Popen(
        [
            str(hdl), "serve", "--quiet", "--store", str(d / "store.redb"),
            "--bind", "127.0.0.1:0", "--records", str(records),
            "--handle-bind", "127.0.0.1:0",
        ],
        stderr=subprocess.PIPE,
        text=True,
    )
    native = None
    said = []
    while True:
        line = proc.stderr.readline()
        assert line, "hdl serve ended: " + "".join(said)
        said.append(line)
        if line.startswith("hdl serve: handle protocol on "):
            native = line.split()[5]
        if line.startswith("hdl serve: listening on "):
            break
    assert native, "".join(said)
    yield native
    proc.terminate()
    proc.wait(timeout=10)


def _cli(hdl: Path, server: str, handles: list[str], *extra: str) -> list[dict]:
    return run_hdl(hdl, ["resolve", "--server", server, *extra], handles)


def test_resolve_gives_what_hdl_resolve_gives(hdl, server):
    expected = _cli(hdl, server, HANDLES)
    got = [json.loads(handle_id.resolve(h, server=server).to_json()) for h in HANDLES]
    assert got == expected
    r = handle_id.resolve("TEST/3", server=server)
    assert (r.code, r.handle.text) == (1, "TEST/3")
    assert [v.type for v in r.values] == ["URL", "EMAIL", "DESC", "DESC"]
    assert r.values[0].text == "https://example.org/TEST/3/1"


def test_filters_as_hdl_resolve_takes_them(hdl, server):
    expected = _cli(hdl, server, ["TEST/4"], "--type", "URL", "--index", "3")
    r = handle_id.resolve("TEST/4", server=server, types=["URL"], indexes=[3])
    assert json.loads(r.to_json()) == expected[0]
    assert sorted(v.index for v in r.values) == [1, 3]
    # A type ending in '.' selects its subtypes; none here.
    assert handle_id.resolve("TEST/4", server=server, types=["HS_."]).code == 200


def test_each_transport(server):
    both = handle_id.resolve("TEST/9", server=server).to_json()
    for transport in ["udp", "tcp"]:
        assert handle_id.resolve("TEST/9", server=server, transport=transport).to_json() == both


def test_from_many_threads_at_once(server):
    # The GIL released, each thread its own runtime (kept between its calls) and sockets.
    from concurrent.futures import ThreadPoolExecutor

    handles = HANDLES * 8
    alone = [handle_id.resolve(h, server=server).to_json() for h in handles]
    with ThreadPoolExecutor(8) as pool:
        together = list(pool.map(lambda h: handle_id.resolve(h, server=server).to_json(), handles))
    assert together == alone


def test_a_handle_not_found_is_a_record_that_says_so(hdl, server):
    r = handle_id.resolve("TEST/nothing", server=server)
    assert (r.code, r.code_meaning, r.values) == (100, "handle not found", [])
    assert json.loads(r.to_json()) == _cli(hdl, server, ["TEST/nothing"])[0]


def test_resolve_many_in_order_with_one_record_each(hdl, server):
    handles = HANDLES * 3 + ["TEST/nothing"]
    expected = _cli(hdl, server, handles)
    for jobs in [1, 3, 64]:
        got = handle_id.resolve_many(handles, server=server, jobs=jobs)
        assert [json.loads(r.to_json()) for r in got] == expected
    # A handle that does not parse: code 102 with the parse error, the others answered.
    got = handle_id.resolve_many(["TEST/1", "no slash here", "TEST/2"], server=server)
    assert [r.code for r in got] == [1, 102, 1]
    with pytest.raises(handle_id.HandleError) as e:
        handle_id.parse("no slash here")
    assert got[1].message == e.value.message
    assert handle_id.resolve_many([], server=server) == []
    # Handles as `Handle`s, from any iterable.
    parsed = (handle_id.parse(h) for h in handles)
    got = handle_id.resolve_many(parsed, server=server)
    assert [json.loads(r.to_json()) for r in got] == expected
    assert handle_id.resolve(handle_id.parse("TEST/3"), server=server).handle.text == "TEST/3"
    with pytest.raises(TypeError, match="NoneType"):
        handle_id.resolve_many(("TEST/1", None), server=server)


def test_certified_answers_verify(hdl, server):
    expected = _cli(hdl, server, ["TEST/5"], "--cert")
    r = handle_id.resolve("TEST/5", server=server, certified=True)
    assert json.loads(r.to_json()) == expected[0]
    # Too large for UDP: the server's unsigned word for it sends the client to TCP.
    r = handle_id.resolve(LARGE, server=server, certified=True)
    assert (r.code, len(r.values)) == (1, 4)
    assert json.loads(r.to_json()) == _cli(hdl, server, [LARGE], "--cert")[0]
    assert r.to_json() == handle_id.resolve(LARGE, server=server, transport="tcp").to_json()


def test_many_jobs_are_only_as_many_as_the_handles(server):
    got = handle_id.resolve_many(["TEST/1", "TEST/2"], server=server, jobs=10**9)
    assert [r.code for r in got] == [1, 1]


def _closed_port() -> str:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return f"127.0.0.1:{s.getsockname()[1]}"


def _udp_echo() -> tuple[str, socket.socket]:
    """A UDP socket that sends every datagram back (in a thread of its own)."""
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    s.bind(("127.0.0.1", 0))

    def echo():
        while True:
            try:
                data, peer = s.recvfrom(65536)
                s.sendto(data, peer)
            except OSError:
                return

    threading.Thread(target=echo, daemon=True).start()
    return f"127.0.0.1:{s.getsockname()[1]}", s


def test_an_echo_is_no_answer():
    there, s = _udp_echo()
    try:
        with pytest.raises(handle_id.ResolveError, match="not an answer"):
            handle_id.resolve("TEST/1", server=there, transport="udp")
    finally:
        s.close()


def test_a_forked_process_resolves_and_leaves_its_parent_resolving(server):
    # A call keeps its thread's runtime; a process forked after it shares that runtime's
    # epoll instance with its parent: the child makes its own and leaves the inherited one
    # alone. Both ask at the same time, the child's calls bounded by an alarm.
    import warnings

    expected = handle_id.resolve("TEST/9", server=server).to_json()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)  # (fork with threads about)
        pid = os.fork()
    if pid == 0:
        signal.alarm(20)
        try:
            ok = all(handle_id.resolve("TEST/9", server=server).to_json() == expected for _ in range(50))
        finally:
            os._exit(0 if ok else 1)
    for _ in range(50):
        assert handle_id.resolve("TEST/9", server=server).to_json() == expected
    _, status = os.waitpid(pid, 0)
    assert os.waitstatus_to_exitcode(status) == 0


def test_ctrl_c_is_not_held_back(server):
    # A server that never answers: UDP would wait 3 s; SIGINT after 0.3 s ends the call.
    silent = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    silent.bind(("127.0.0.1", 0))
    there = f"127.0.0.1:{silent.getsockname()[1]}"
    # (A process started in the background, as CI starts it, ignores SIGINT until told.)
    before = signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        for call in [
            lambda: handle_id.resolve("TEST/1", server=there, transport="udp"),
            lambda: handle_id.resolve_many(["TEST/1"] * 50, server=there, transport="udp"),
        ]:
            timer = threading.Timer(0.3, os.kill, (os.getpid(), signal.SIGINT))
            t = time.monotonic()
            timer.start()
            with pytest.raises(KeyboardInterrupt):
                call()
            assert time.monotonic() - t < 1.5
            timer.join()
            # (The tasks the call left end with its runtime; the next call has its own.)
            assert handle_id.resolve("TEST/9", server=server).code == 1
    finally:
        signal.signal(signal.SIGINT, before)
        silent.close()


def test_a_call_from_a_signal_handler_during_a_call_is_refused(server):
    # Python runs a signal's handler inside the wait of a call; a runtime cannot run inside
    # another, so a call the handler makes is refused with a RuntimeError, which the outer
    # call raises. The thread's next call works.
    silent = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    silent.bind(("127.0.0.1", 0))
    there = f"127.0.0.1:{silent.getsockname()[1]}"

    def handler(signum, frame):
        handle_id.resolve("TEST/9", server=server)

    before = signal.signal(signal.SIGALRM, handler)
    try:
        signal.setitimer(signal.ITIMER_REAL, 0.2)
        t = time.monotonic()
        with pytest.raises(RuntimeError, match="signal handler"):
            handle_id.resolve("TEST/1", server=there, transport="udp")
        assert time.monotonic() - t < 1.5
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, before)
        silent.close()
    assert handle_id.resolve("TEST/9", server=server).code == 1


def test_no_server_there():
    there = _closed_port()
    t = time.monotonic()
    with pytest.raises(handle_id.ResolveError) as e:
        handle_id.resolve("TEST/1", server=there, transport="tcp", timeout=2)
    assert isinstance(e.value, ConnectionError)
    assert there in str(e.value)
    got = handle_id.resolve_many(["TEST/1", "TEST/2"], server=there, transport="tcp", timeout=2)
    assert [r.code for r in got] == [2, 2]
    assert all(there in r.message for r in got)
    # With `certified`, the key is asked for first: every handle fails with it, but one that
    # does not parse says so.
    got = handle_id.resolve_many(["TEST/1", "no slash"], server=there, certified=True, timeout=2)
    assert [r.code for r in got] == [2, 102]
    assert time.monotonic() - t < 10


def test_bad_arguments(tmp_path, server):
    with pytest.raises(handle_id.HandleError) as e:
        handle_id.resolve("no slash", server=server)
    assert e.value.kind == "missing-slash"
    for kwargs, message in [
        ({"server": "nowhere"}, "not HOST:PORT"),
        ({"server": "127.0.0.1:0"}, "port 0"),
        ({"server": server, "transport": "quic"}, "transport"),
        ({"server": server, "timeout": 0}, "timeout"),
        ({"server": server, "timeout": float("inf")}, "finite"),
        ({"server": server, "indexes": [-1]}, "indexes: -1"),
        ({"server": server, "indexes": [2**32]}, "indexes: 4294967296"),
        ({"server": server, "root_info": tmp_path / "x"}, "not both"),
    ]:
        with pytest.raises(ValueError, match=message):
            handle_id.resolve("TEST/1", **kwargs)
    for jobs in (0, -1):
        with pytest.raises(ValueError, match="jobs: at least 1"):
            handle_id.resolve_many(["TEST/1"], server=server, jobs=jobs)
    with pytest.raises(FileNotFoundError) as e:
        handle_id.resolve("TEST/1", root_info=tmp_path / "missing")
    assert e.value.filename == str(tmp_path / "missing")
    bad = tmp_path / "root_info"
    bad.write_bytes(b"\x00\x00\x00\x08not root")
    with pytest.raises(ValueError, match="root info does not read"):
        handle_id.resolve("TEST/1", root_info=bad)
    with pytest.raises(TypeError):
        handle_id.resolve_many("TEST/1", server=server)
