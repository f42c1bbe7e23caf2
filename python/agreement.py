"""Where idutils and handle-id disagree: every one-line input of the corpus the repository
carries (tests/corpus/), read by idutils (`is_doi`, then `normalize_doi`) and by
`handle_id.clean`, and each line where the DOIs they give differ listed under the SPEC
rule that decides it: the rules of the fixes handle-id made, or of the error it gave.

    python python/agreement.py [--out python/idutils-agreement.md]

Needs idutils (pip install idutils) and the handle_id package installed.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
# The installed package, not python/handle_id/ beside this script (no native module there).
sys.path = [p for p in sys.path if Path(p or ".").resolve() != Path(__file__).resolve().parent]


def corpus_lines() -> list[str]:
    seen, out = set(), []
    for name, key in (("real_ids.jsonl", "id"), ("spec_examples.jsonl", "input"), ("peers.jsonl", "input")):
        with open(ROOT / "tests" / "corpus" / name, encoding="utf-8") as f:
            for line in f:
                s = json.loads(line)[key]
                if isinstance(s, str) and "\n" not in s and "\r" not in s and s not in seen:
                    seen.add(s)
                    out.append(s)
    return out


def idutils_doi(line: str):
    from idutils import is_doi, normalize_doi

    try:
        return normalize_doi(line) if is_doi(line) else None
    except Exception:  # idutils raises on some inputs it first accepts
        return None


def handle_id_doi(line: str):
    """The DOI handle-id cleans the line to (None for none), and why: the rules that decide."""
    import handle_id

    try:
        c = handle_id.clean(line)
    except handle_id.HandleError as e:
        return None, f"refused: {e.kind} ({e.rule})"
    if not c.handle.is_doi:
        return None, f"a handle that is no DOI: {c.handle.text} (H8)"
    why = ", ".join(f"{f.code} ({f.rule})" for f in c.fixes)
    if not why and c.form != "handle":
        # (A form read, not a fix: `urn:doi:` is a textual prefix, U8.)
        why = f"read from its form {c.form} (SPEC U8)"
    # A DOI is any handle under the prefix 10 (H8): a shortDOI `10/abc`, a registrant
    # code of letters, an empty local name (valid, with a warning: D2).
    return c.handle.text, why or "a DOI as written (SPEC H8, D2)"


def main() -> int:
    p = argparse.ArgumentParser()
    p.add_argument("--out", help="write the list as Markdown to this file")
    args = p.parse_args()
    lines = corpus_lines()
    groups: dict = defaultdict(list)
    agree = 0
    for line in lines:
        theirs = idutils_doi(line)
        ours, why = handle_id_doi(line)
        if theirs == ours:
            agree += 1
            continue
        if theirs is None:
            kind = "handle-id finds a DOI, idutils none"
        elif ours is None:
            kind = "idutils finds a DOI, handle-id none"
        else:
            kind = "both find a DOI, not the same"
        groups[(kind, why)].append((line, theirs, ours))
    out = [
        "# idutils and handle-id on the corpus",
        "",
        f"Made by `python python/agreement.py --out python/idutils-agreement.md` (idutils "
        f"{getattr(__import__('idutils'), '__version__', '?')}): {len(lines)} one-line "
        f"inputs of tests/corpus/, {agree} given the same DOI (or none) by both, "
        f"{len(lines) - agree} not. Each line that differs, under what handle-id did and the SPEC "
        "rules that decide it (its fixes' rules, or its error's).",
        "",
    ]
    for (kind, why), rows in sorted(groups.items(), key=lambda kv: (kv[0][0], -len(kv[1]), kv[0][1])):
        out.append(f"## {kind}: {why} ({len(rows)})")
        out.append("")
        out.append("| input | idutils | handle-id |")
        out.append("|---|---|---|")
        for line, theirs, ours in rows:
            cell = lambda s: "—" if s is None else "`" + s.replace("|", "\\|").replace("`", "'") + "`"
            out.append(f"| {cell(line)} | {cell(theirs)} | {cell(ours)} |")
        out.append("")
    text = "\n".join(out)
    if args.out:
        Path(args.out).write_text(text, encoding="utf-8")
    summary = defaultdict(int)
    for (kind, _), rows in groups.items():
        summary[kind] += len(rows)
    print(f"{len(lines)} lines: {agree} agree")
    for kind, n in sorted(summary.items()):
        print(f"  {n:5d}  {kind}")
    if not args.out:
        print(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
