"""What the tests share: the corpus the repository carries (tests/corpus/, a copy of the
project's shared corpus) and the `hdl` command, whose answers the Python package is held
to on the same inputs."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
CORPUS = ROOT / "tests" / "corpus"


def corpus_strings() -> list[str]:
    """Every input of the corpus (peers' inputs, real identifiers, the specifications'
    examples), in order, without repeats."""
    seen: dict[str, None] = {}
    for name, key in [
        ("spec_examples.jsonl", "input"),
        ("peers.jsonl", "input"),
        ("real_ids.jsonl", "id"),
    ]:
        with open(CORPUS / name, encoding="utf-8") as f:
            for line in f:
                seen.setdefault(json.loads(line)[key], None)
    return list(seen)


def corpus_lines() -> list[str]:
    """The corpus inputs that are one line each (what the `hdl` command reads)."""
    return [s for s in corpus_strings() if "\n" not in s and "\r" not in s]


# Inputs of our own beside the corpus: non-ASCII text around and inside identifiers,
# wrapping pairs, labels, white space of several kinds, errors after non-ASCII text.
EXTRA_LINES = [
    "",
    " ",
    "10@x/y",
    "é@x/y",
    "DOI: 10.1045/APRIL2006-PASKIN.",
    "«doi:10.1000/ÄBC»",
    "\u00a0hdl:20.1000/5555/\u2003",
    "https://doi.org/10.1000/caf%C3%A9.",
    "“10.1000/182”",
    "10.1000/日本語",
    "日本/語",
    "hdl://20.1000/5555%23x?noredirect",
    "urn:doi:10.123:456",
    "https://example.com/10.1000/182",
    "See https://example.com/10.1000/182 for details",
    "10.1000/a\u200bb",
    "10.1000/\u202eabc",
    "🦀 doi:10.1000/🦀",
]

TEXT_LINES = [
    "Ça cité doi:10.1000/182, et (https://doi.org/10.3319/TAO.2009.05.25.02(IWNOP)).",
    "日本語の論文 https://doi.org/10.1000/日本 と hdl:20.1000/5555 です。",
    "🦀🦀 10.1038/nphys1170 🦀 info:doi/10.1000%2F182 ‘doi:10.5555/x’",
    "no identifier here, only café and 10/ and doi:",
    "<a href=\"https://hdl.handle.net/4263537/5001\">Ω</a> [10.1000/xyz]",
]


@pytest.fixture(scope="session")
def hdl() -> Path:
    """The `hdl` command: $HDL, else target/debug/hdl or target/release/hdl (run-tests.sh
    builds it)."""
    for candidate in [
        os.environ.get("HDL"),
        ROOT / "target" / "debug" / "hdl",
        ROOT / "target" / "release" / "hdl",
        shutil.which("hdl"),
    ]:
        if candidate and Path(candidate).is_file():
            return Path(candidate)
    pytest.fail("no hdl command: build it (cargo build -p handle-cli) or set HDL")


def run_hdl(hdl: Path, args: list[str], lines: list[bytes] | list[str]) -> list[dict]:
    """The JSON records `hdl ARGS --json` writes for `lines` on standard input."""
    data = b"".join(
        (l if isinstance(l, bytes) else l.encode("utf-8")) + b"\n" for l in lines
    )
    out = subprocess.run(
        [str(hdl), *args, "--json"], input=data, capture_output=True, check=False
    )
    assert out.returncode in (0, 1), out.stderr.decode(errors="replace")
    return [json.loads(l) for l in out.stdout.decode("utf-8").splitlines()]


def char_offset(text: str, byte: int) -> int:
    """The Python string offset of a UTF-8 byte offset into `text`."""
    return len(text.encode("utf-8")[:byte].decode("utf-8", errors="ignore"))
