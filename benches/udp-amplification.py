#!/usr/bin/env python3
"""UDP amplification of a Handle-protocol server (SPEC N14): one socket asks HOST:PORT for
HANDLE RATE times a second for SECONDS (resolution requests as HANDLE.NET's client writes
them, one datagram each) and counts the bytes sent and the bytes that came back, then
prints both and their ratio. The bytes received are a lower bound where the receiving
socket overflows (a server that answers 200 times what it is sent).

    python3 benches/udp-amplification.py HOST:PORT HANDLE [RATE] [SECONDS]
"""
import socket
import struct
import sys
import threading
import time


def request(handle: bytes, request_id: int) -> bytes:
    # Header: opcode 1 (resolution), response code 0, flags (recursive, cache certify,
    # public only), site serial 0xFFFF, recursion 0, reserved 0, expiration; then the body
    # (the handle, no indexes, no types) and an empty credential.
    expiration = int(time.time()) + 43200
    header = struct.pack(">IIIHBBI", 1, 0, 0x19000000, 0xFFFF, 0, 0, expiration)
    body = struct.pack(">I", len(handle)) + handle + struct.pack(">II", 0, 0)
    message = header + struct.pack(">I", len(body)) + body + struct.pack(">I", 0)
    # Envelope: version 2.11, flags 0 (suggest 2), session 0, request id, sequence 0.
    envelope = struct.pack(">BBBBIIII", 2, 11, 2, 11, 0, request_id, 0, len(message))
    return envelope + message


def main() -> None:
    host, port = sys.argv[1].rsplit(":", 1)
    handle = sys.argv[2].encode()
    rate = int(sys.argv[3]) if len(sys.argv) > 3 else 5000
    seconds = float(sys.argv[4]) if len(sys.argv) > 4 else 3
    server = (host, int(port))
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 8 << 20)
    s.settimeout(0.5)
    received = [0, 0]
    done = threading.Event()

    def receive() -> None:
        while True:
            try:
                n = len(s.recv(2048))
                received[0] += n
                received[1] += 1
            except socket.timeout:
                if done.is_set():
                    return

    reader = threading.Thread(target=receive)
    reader.start()
    sent = n = 0
    start = time.monotonic()
    while (elapsed := time.monotonic() - start) < seconds:
        while n < int(elapsed * rate):
            sent += s.sendto(request(handle, n + 1), server)
            n += 1
        time.sleep(0.002)
    time.sleep(1)
    done.set()
    reader.join()
    print(f"{n} requests, {sent} bytes sent; {received[1]} datagrams, {received[0]} bytes back: "
          f"{received[0] / max(sent, 1):.2f}x")


if __name__ == "__main__":
    main()
