"""The Handle authorisation scheme asked of two servers the same way (SPEC W3), request by
request: the reference's own authentication (HandleAuthLauncher) and hdl serve, each on
the same records, where 4263537/KEYS holds at index 300 the HS_PUBKEY of KEY.

    python3 handle_auth_diff.py REFERENCE_URL OURS_URL KEY.pem OTHER.pem

Each case is a few requests (a challenge got, answered, used); what is compared is the
status of each answer, and whether a 401 offers a Handle challenge. Exit status 0 when
every case agrees or differs as SPEC W3 decides, 1 otherwise.
"""

import base64
import subprocess
import sys
import urllib.error
import urllib.request

HANDLE = "/api/handles/4263537/DEMO-PAGE"
ID = "300%3A4263537%2FKEYS"


def ask(base, path, authorization=None, method="GET"):
    request = urllib.request.Request(base + path, method=method)
    if authorization:
        request.add_header("Authorization", authorization)
    try:
        with urllib.request.urlopen(request, timeout=30) as r:
            return r.status, r.headers.get_all("WWW-Authenticate") or []
    except urllib.error.HTTPError as e:
        return e.code, e.headers.get_all("WWW-Authenticate") or []


def challenge(headers):
    for h in headers:
        if h[:7].lower() != "handle ":
            continue
        fields = {}
        for part in h[7:].split(","):
            name, _, value = part.strip().partition("=")
            fields[name.strip()] = value.strip().strip('"')
        if "sessionId" in fields and "nonce" in fields:
            return fields["sessionId"], base64.b64decode(fields["nonce"])
    return None


def sign(key, data, digest="sha256"):
    return subprocess.run(
        ["openssl", "dgst", "-" + digest, "-sign", key, "-binary"],
        input=data, capture_output=True, check=True,
    ).stdout


def answer(session, nonce, key, ident=ID, alg="SHA256", digest="sha256"):
    cnonce = b"client nonce 0001"
    signature = sign(key, nonce + cnonce, digest)
    return (
        f'Handle version="0", sessionId="{session}", cnonce="{base64.b64encode(cnonce).decode()}", '
        f'id="{ident}", type="HS_PUBKEY", alg="{alg}", signature="{base64.b64encode(signature).decode()}"'
    )


def secret_answer(session, nonce, secret, alg="HMAC-SHA256", ident="301%3A4263537%2FKEYS"):
    """An HS_SECKEY answer: the MAC of the nonces by the secret key (the reference's Util.doMac)."""
    import hashlib
    import hmac
    cnonce = b"client nonce 0002"
    data = nonce + cnonce
    if alg == "HMAC-SHA256":
        mac = hmac.new(secret, data, hashlib.sha256).digest()
    elif alg == "HMAC-SHA1":
        mac = hmac.new(secret, data, hashlib.sha1).digest()
    else:
        mac = hashlib.sha256(secret + data + secret).digest()
    return (
        f'Handle sessionId="{session}", cnonce="{base64.b64encode(cnonce).decode()}", id="{ident}", '
        f'type="HS_SECKEY", alg="{alg}", signature="{base64.b64encode(mac).decode()}"'
    )


def opened(base):
    """A challenge, as a client without a session gets one: an answer without its signature."""
    status, headers = ask(base, HANDLE, f'Handle version="0", id="{ID}"')
    return status, challenge(headers)


def run(base, key, other):
    out = {}
    status, ch = opened(base)
    out["an answer without a signature: 401 and a challenge"] = (status, ch is not None)
    if ch is None:
        return out
    session, nonce = ch
    out["the right key"] = ask(base, HANDLE, answer(session, nonce, key))[0]
    out["the session alone, after"] = ask(base, HANDLE, f'Handle sessionId="{session}"')[0]
    out["the same answer again"] = ask(base, HANDLE, answer(session, nonce, key))[0]
    _, (s2, n2) = opened(base)
    out["another key"] = ask(base, HANDLE, answer(s2, n2, other))[0]
    _, (s3, n3) = opened(base)
    out["index 0: any key of the handle"] = ask(base, HANDLE, answer(s3, n3, key, ident="4263537%2FKEYS"))[0]
    _, (s4, n4) = opened(base)
    out["a handle without that key"] = ask(base, HANDLE, answer(s4, n4, key, ident="300%3A4263537%2FDEMO-PAGE"))[0]
    out["a session never opened"] = ask(base, HANDLE, answer("0123456789abcdef", nonce, key))[0]
    _, (s5, _n5) = opened(base)
    out["an answer to another session's nonce"] = ask(base, HANDLE, answer(s5, nonce, key))[0]
    _, (s6, n6) = opened(base)
    out["SHA-1"] = ask(base, HANDLE, answer(s6, n6, key, alg="SHA1", digest="sha1"))[0]
    _, (s7, n7) = opened(base)
    out["a SHA-256 signature named SHA1"] = ask(base, HANDLE, answer(s7, n7, key, alg="SHA1"))[0]
    _, (s8, n8) = opened(base)
    out["MD5"] = ask(base, HANDLE, answer(s8, n8, key, alg="MD5", digest="md5"))[0]
    _, (s9, n9) = opened(base)
    out["version 1"] = ask(base, HANDLE, answer(s9, n9, key).replace('version="0"', 'version="1"'))[0]
    for alg in ["HMAC-SHA256", "HMAC-SHA1", "SHA-256"]:
        _, (s, n) = opened(base)
        out[f"HS_SECKEY {alg}, the right secret"] = ask(base, HANDLE, secret_answer(s, n, b"s3cret", alg))[0]
        _, (s, n) = opened(base)
        out[f"HS_SECKEY {alg}, a wrong secret"] = ask(base, HANDLE, secret_answer(s, n, b"wrong", alg))[0]
    return out


# Where the answers differ on purpose, and the rule that says so. The reference's filter,
# in front of no handle server of its own (a proxy, as here), checks a secret key's answer
# through its resolver and then reads the verdict the wrong way round
# (StandardHandleAuthenticator.verifyIdentityViaResolver returns the identity when the
# server says the answer is not valid, and refuses it when it is); its handle server's own
# REST API (verifyIdentityViaServer) reads it the right way, as hdl serve does (W3).
DECIDED = {"MD5": "W3"}
for _alg in ["HMAC-SHA256", "HMAC-SHA1", "SHA-256"]:
    DECIDED[f"HS_SECKEY {_alg}, the right secret"] = "W3: the reference proxy's check is inverted"
    DECIDED[f"HS_SECKEY {_alg}, a wrong secret"] = "W3: the reference proxy's check is inverted"


def main():
    reference, ours, key, other = sys.argv[1:5]
    ref, our = run(reference, key, other), run(ours, key, other)
    bad = 0
    for case in ref:
        r, o = ref[case], our.get(case)
        if r == o:
            verdict = "AGREE  "
        elif case in DECIDED:
            verdict = "DECIDED"
        else:
            verdict = "DIFFER "
            bad += 1
        rule = f" ({DECIDED[case]})" if verdict == "DECIDED" else ""
        print(f"{verdict} {case}: reference {r}, ours {o}{rule}")
    print(f"handle auth diff: {len(ref) - bad}/{len(ref)} agree or differ as decided")
    sys.exit(1 if bad else 0)


if __name__ == "__main__":
    main()
