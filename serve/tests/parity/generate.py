#!/usr/bin/env python3
"""Records and requests made at random from a seed, for the differential with the reference proxy.

    generate.py SEED N OUTDIR      (writes OUTDIR/records.jsonl and OUTDIR/requests.txt)

N handles under the prefix 7654321 (some with `/`, a space or `é` in them), each with a few values drawn from: URL
values (and `url`, `URL.alt`) of several schemes, hosts (an IDN, IPv6, a port) and paths of characters that need
encoding; EMAIL; DESC; `hex` data, text or not; `10320/loc` values of one to three locations (one of weight 1) with
`ctype`, `http_role`, `view`, `http_sc`, `score`, a `<locations>` `http_sc` or `chooseby`; `HS_ALIAS` to another of
them; TTLs of a day to 0. Requests per handle: the redirect, `noredirect`, `showurls`, `type=url`, `index=1`,
`ignore_aliases`, `action=api`, the handle in the other case, `Accept: application/json`, a browser's `Accept`, the
REST API (and in lower case with `type=URL`), HEAD. The same SEED gives the same files (Python's `random`).
"""
import json, random, sys, os, urllib.parse
seed, n, out = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3]
R = random.Random(seed)
P = "7654321"
A = {"index": 100, "type": "HS_ADMIN", "data": {"format": "admin", "value": {"handle": "0.NA/" + P, "index": 300, "permissions": "011111111111"}}, "ttl": 86400}
chars = "abcXYZ09-_.~!$&'()*+,;=:@ /?#%é€\"<>"
def word(k=6): return "".join(R.choice("abcdefghXYZ0123456789-_") for _ in range(R.randint(1, k)))
def url():
    host = R.choice(["ex.example.net", "b\u00fccher.example", "h.example.org:8080", "[::1]"])
    path = "".join(R.choice(chars) for _ in range(R.randint(0, 8)))
    return R.choice(["https://", "http://", "ftp://", "mailto:"]) + host + "/" + path
handles = [P + "/" + word() + R.choice(["", "", "/x", " y", "\u00e9"]) for _ in range(n)]
handles = list(dict.fromkeys(handles))
recs = []
for i, h in enumerate(handles):
    vals = []
    idx = 1
    for _ in range(R.randint(0, 4)):
        kind = R.choice(["URL", "URL", "url", "URL.alt", "EMAIL", "DESC", "HEX", "LOC", "LOC", "ALIAS"])
        ttl = R.choice([86400, 3600, 60, 0])
        if kind in ("URL", "url", "URL.alt"):
            v = {"index": idx, "type": kind, "data": {"format": "string", "value": url()}, "ttl": ttl}
        elif kind == "EMAIL":
            v = {"index": idx, "type": "EMAIL", "data": {"format": "string", "value": word() + "@example.net"}, "ttl": ttl}
        elif kind == "DESC":
            v = {"index": idx, "type": "DESC", "data": {"format": "string", "value": "".join(R.choice(chars) for _ in range(10))}, "ttl": ttl}
        elif kind == "HEX":
            b = bytes(R.randrange(256) for _ in range(R.randint(1, 6))) if R.random() < 0.5 else word().encode()
            v = {"index": idx, "type": "CHECKSUM", "data": {"format": "hex", "value": b.hex()}, "ttl": ttl}
        elif kind == "LOC":
            locs = []
            k = R.randint(1, 3)
            first = R.randrange(k)
            for j in range(k):
                attrs = {"href": url().replace("&", "&amp;").replace("<", "&lt;").replace('"', "&quot;").replace(">", "&gt;")}
                attrs["weight"] = "1" if j == first else "0"
                if R.random() < 0.4: attrs["ctype"] = R.choice(["text/html", "application/json", "application/pdf"])
                if R.random() < 0.3: attrs["http_role"] = R.choice(["conneg", "browser"])
                if R.random() < 0.3: attrs["view"] = R.choice(["a", "b"])
                if R.random() < 0.2: attrs["http_sc"] = R.choice(["301", "303", "307", "308", "999"])
                if R.random() < 0.2: attrs["score"] = str(R.randint(0, 3))
                locs.append("<location " + " ".join(f'{a}="{b}"' for a, b in attrs.items()) + "/>")
            root = "<locations" + (R.choice(['', ' http_sc="303"', ' chooseby="locatt,score"']) ) + ">"
            v = {"index": idx, "type": "10320/loc", "data": {"format": "string", "value": root + "".join(locs) + "</locations>"}, "ttl": ttl}
        else:
            v = {"index": idx, "type": "HS_ALIAS", "data": {"format": "string", "value": R.choice(handles)}, "ttl": ttl}
        vals.append(v)
        idx += R.randint(1, 3)
    vals.append(A)
    recs.append({"responseCode": 1, "handle": h, "values": vals})
os.makedirs(out, exist_ok=True)
with open(os.path.join(out, "records.jsonl"), "w") as f:
    for r in recs: f.write(json.dumps(r, ensure_ascii=False) + "\n")
enc = lambda h: urllib.parse.quote(h, safe="/!$()*,:@;=-._~")
with open(os.path.join(out, "requests.txt"), "w") as f:
    for h in handles:
        e = enc(h)
        for q in ["", "?noredirect", "?action=showurls", "?type=url", "?index=1", "?ignore_aliases", "?action=api"]:
            f.write(f"GET /{e}{q}\n")
        f.write(f"GET /{enc(h.swapcase())}\n")
        f.write(f"GET /{e} Accept: application/json\n")
        f.write(f"GET /{e} Accept: text/html User-Agent: Mozilla/5.0\n")
        f.write(f"GET /api/handles/{e}\n")
        f.write(f"GET /api/handles/{enc(h.lower())}?type=URL\n")
        f.write(f"HEAD /{e}\n")
