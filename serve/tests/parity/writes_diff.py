#!/usr/bin/env python3
"""Ask two REST APIs the same writes and compare what a client reads of each answer: the
HTTP status, the `responseCode`, whether the handle is named, and that the body is JSON.

    writes_diff.py REFERENCE_BASE CANDIDATE_BASE WRITES_FILE

WRITES_FILE: `METHOD PATH CONTENT-TYPE BODY` a line (`-` for none), and ` => RULE` after a
request the two answer otherwise on purpose (the SPEC rule that says why). Prints a line a
request; exit status 0 when every request agrees or differs as its rule says, 1 otherwise.
"""
import http.client
import json
import sys
import urllib.parse


def ask(base, method, path, ctype, body):
    url = urllib.parse.urlsplit(base)
    conn = http.client.HTTPConnection(url.hostname, url.port, timeout=20)
    headers = {} if ctype == "-" else {"Content-Type": ctype}
    data = None if body == "-" else body.encode()
    conn.request(method, path, body=data, headers=headers)
    r = conn.getresponse()
    raw = r.read()
    try:
        j = json.loads(raw)
        view = (r.status, j.get("responseCode"), "handle" in j)
    except ValueError:
        view = (r.status, "not JSON", False)
    conn.close()
    return view


def main():
    ref, cand, path = sys.argv[1:4]
    bad = 0
    total = 0
    for line in open(path, encoding="utf-8"):
        line = line.rstrip("\n")
        if not line.strip() or line.startswith("#"):
            continue
        request, _, rule = line.partition(" => ")
        method, target, ctype, body = request.split(" ", 3)
        total += 1
        a = ask(ref, method, target, ctype, body)
        b = ask(cand, method, target, ctype, body)
        if a == b:
            verdict = "AGREE "
        elif rule:
            verdict = "DECIDED"
        else:
            verdict = "DIFFER"
            bad += 1
        note = f" ({rule})" if rule and a != b else ""
        print(f"{verdict} {method} {target} {ctype} {body[:40]}: reference {a}, ours {b}{note}")
    print(f"writes diff: {total - bad}/{total} agree or differ as decided")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
