#!/usr/bin/env python3
"""Of proxy_diff.py's disagreements (its --json lines on standard input), those that are a random choice of the
reference: asked again ASKED times, the reference answers the candidate's status and Location too. Prints the others
(proxy_diff's lines, as text), and exits 1 when there are any.

    proxy_diff.py REF CAND REQUESTS --json | random_choices.py REF
"""
import json
import sys

sys.path.insert(0, __import__("os").path.dirname(__file__))
from record import fetch, parse_line  # noqa: E402

ASKED = 12


def main():
    base = sys.argv[1].rstrip("/")
    left = 0
    for line in sys.stdin:
        if not line.startswith("{"):
            continue
        d = json.loads(line)
        if d["agree"]:
            continue
        cand = d["candidate"]
        want = (cand.get("status"), cand.get("location"))
        only_choice = all(x.startswith(("location ", "status ", "header vary", "header expires")) for x in d["diffs"])
        seen = set()
        if only_choice:
            label = d["request"]
            # proxy_diff's label writes headers as [Name: value]; the request line has them bare.
            raw = label.replace("[", "").replace("]", "")
            method, path, headers = parse_line(raw)
            for _ in range(ASKED):
                status, hdrs, _ = fetch(base, method, path, headers)
                loc = hdrs.get("location")
                if loc is not None and loc.startswith(base + "/"):
                    loc = "{this proxy}" + loc[len(base):]
                seen.add((status, loc))
        if want in seen:
            print(f"random  {d['request']}: the reference answers {sorted(seen, key=str)} at random")
        else:
            left += 1
            print(f"DIFFER  {d['request']}\n        " + "; ".join(d["diffs"]))
    return 1 if left else 0


if __name__ == "__main__":
    sys.exit(main())
