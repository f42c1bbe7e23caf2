#!/usr/bin/env python3
"""Ask a proxy each request of a request file and write its answers as JSON lines.

    record.py BASE_URL REQUESTS > answers.jsonl

REQUESTS: the lines of proxy_diff.py (`METHOD PATH [Header: value]...`; blank lines and `#` comments skipped).
Each answer: the request (`line`, `method`, `path`, `headers`), then `status`, `location` (a Location back at
BASE_URL written `{this proxy}/…`), `content_type`, whether `expires` was there, `vary` (the header, or null) and the
`body` as text (UTF-8; bytes that are not are replaced; an HTML page reduced to its table rows, the only part of it
compared). Each request is asked five times: when the Location
changes between them, `locations` lists every one seen (a random choice; the replay accepts any of them).
"""
import http.client
import json
import re
import sys
import urllib.parse

ROW = re.compile(r"<tr\b[^>]*>.*?</tr>", re.S | re.I)

HEADER_START = re.compile(r"\s+(?=[A-Za-z0-9-]+:\s)")
ASKED = 5


def parse_line(line):
    head = HEADER_START.split(line.strip())
    method, path = head[0].split(None, 1)
    headers = []
    for h in head[1:]:
        k, _, v = h.partition(":")
        headers.append([k.strip(), v.strip()])
    return method.upper(), path.strip(), headers


def fetch(base, method, path, headers):
    u = urllib.parse.urlsplit(base)
    conn = http.client.HTTPConnection(u.hostname, u.port, timeout=30)
    try:
        conn.putrequest(method, path, skip_accept_encoding=True)
        for k, v in headers:
            conn.putheader(k, v)
        conn.putheader("Connection", "close")
        conn.endheaders()
        r = conn.getresponse()
        body = b"" if method == "HEAD" else r.read()
        hdrs = {}
        for k, v in r.getheaders():
            hdrs.setdefault(k.lower(), v)
        return r.status, hdrs, body
    finally:
        conn.close()


def reduce(content_type, text):
    """An HTML page's table rows, each on a line; any other body as it is."""
    if (content_type or "").split(";")[0].strip().lower() in ("text/html", "application/xhtml+xml"):
        return "\n".join(ROW.findall(text))
    return text


def main():
    base, requests = sys.argv[1].rstrip("/"), sys.argv[2]
    for line in open(requests, encoding="utf-8"):
        line = line.rstrip("\n")
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        method, path, headers = parse_line(line)
        seen = []
        for _ in range(ASKED):
            status, hdrs, body = fetch(base, method, path, headers)
            loc = hdrs.get("location")
            if loc is not None and loc.startswith(base + "/"):
                loc = "{this proxy}" + loc[len(base):]
            if loc not in seen:
                seen.append(loc)
        answer = {
            "line": line.strip(),
            "method": method,
            "path": path,
            "headers": headers,
            "status": status,
            "location": seen[0] if len(seen) == 1 else loc,
            "content_type": hdrs.get("content-type"),
            "expires": "expires" in hdrs,
            "vary": hdrs.get("vary"),
            "body": reduce(hdrs.get("content-type"), body.decode("utf-8", "replace")),
        }
        if len(seen) > 1:
            answer["locations"] = seen
            print(f"record.py: {line.strip()}: the Location varies: {seen}", file=sys.stderr)
        print(json.dumps(answer, ensure_ascii=False))


if __name__ == "__main__":
    main()
