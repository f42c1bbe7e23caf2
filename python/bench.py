"""Cleaning a million messy identifier lines from Python: idutils (is_doi +
normalize_doi), handle_id.clean one line at a time, handle_id.arrow.clean over the
column, the Polars namespace over a frame's column, and the `hdl clean` command on the same
file, in one run: in three rounds, each way timed once a round (its best kept), so that a
stretch of the machine running slow falls on each alike; Python's cyclic collector paused
while each runs, as `timeit` pauses it.

    python python/bench.py [--lines N] [--hdl target/release/hdl]
    python python/bench.py --columns [--lines N] [--calls 9]

The lines are made here, reproducibly (seed 1), from the real DOIs and handles of the
corpus the repository carries, written as catalogues write them: labels, brackets and
quotes, resolver URLs with and without scheme, trailing punctuation, white space, case.
idutils is timed only where it is installed (pip install idutils). With `--columns`, the
column functions alone, each called `--calls` times in this process before anything else is
made (the best and the median): steadier than the whole run, whose Python objects leave the
allocator's heap in a state that moves the columns' numbers between runs. Beside them, the floors
of the two paths in the same run: `handle_id.is_valid` one line at a time (a call that
validates and returns a bool), `handle_id.arrow.is_valid` (the validator over the column),
and, in a build with the `bench-floor` feature, the columns `handle_id.arrow.clean`
returns, made without cleaning.
"""

from __future__ import annotations

import argparse
import gc
import json
import os
import random
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
# The installed package, not python/handle_id/ beside this script (no native module there).
sys.path = [p for p in sys.path if Path(p or ".").resolve() != Path(__file__).resolve().parent]


def base_identifiers() -> list[str]:
    ids = []
    with open(ROOT / "tests" / "corpus" / "real_ids.jsonl", encoding="utf-8") as f:
        for line in f:
            r = json.loads(line)
            if r["kind"] in ("doi", "handle") and "\n" not in r["id"]:
                ids.append(r["id"].strip().rstrip(".,;"))
    return ids


WRAPS = [
    "{}", "{}", "{}", "doi:{}", "DOI: {}", "DOI {}", "doi: {}", "https://doi.org/{}",
    "http://dx.doi.org/{}", "doi.org/{}", "dx.doi.org/{}", "https://hdl.handle.net/{}",
    "hdl.handle.net/{}", "({})", "[{}]", "\"{}\"", "<{}>", "{}.", "{},", "{};", " {} ",
    "\t{}", "info:doi/{}", "hdl:{}", "https://doi.org/{}?via=x", "(doi:{}).",
]


def messy_lines(n: int) -> list[str]:
    rng = random.Random(1)
    ids = base_identifiers()
    out = []
    for _ in range(n):
        h = rng.choice(ids)
        if rng.random() < 0.3:
            h = h.upper()
        out.append(rng.choice(WRAPS).format(h))
    return out


def once(fn):
    """One call of `fn`: its time, with Python's cyclic collector paused (as `timeit` pauses
    it), and its value."""
    gc.collect()
    gc.disable()
    try:
        t = time.perf_counter()
        value = fn()
        return time.perf_counter() - t, value
    finally:
        gc.enable()


def timed_in_rounds(runs: list, results: dict, rounds: int = 3) -> None:
    """Each of `runs` (label, function) once a round, in turns, `rounds` times: each its best.
    In turns, so that a stretch of the machine running slow (its cores are shared) falls on
    each of them alike, not on whichever ran then."""
    times: dict = {}
    for _ in range(rounds):
        for label, fn in runs:
            elapsed, value = once(fn)
            best = times.get(label, (elapsed, value))
            times[label] = min(best, (elapsed, value), key=lambda tv: tv[0])
    for label, _ in runs:
        results[label] = times[label]
        print(f"{label:45s} {times[label][0]:7.3f} s", flush=True)


def by_batches(make):
    """The Polars namespace's expression `make()` as `map_batches` over handle_id.arrow, as
    it is where Polars does not take the compiled plugin."""
    import handle_id.polars

    was = handle_id.polars.COMPILED
    handle_id.polars.COMPILED = False
    try:
        return make()
    finally:
        handle_id.polars.COMPILED = was


def columns(lines: list[str], calls: int) -> None:
    """The column functions alone, over the messy lines and over bare DOIs (the same
    identifiers, 30% in capitals); the messy lines also as a string_view column pyarrow
    makes (a data buffer each 32 KiB), and as many rows drawn from 20,000 of them, written
    out and as a dictionary (a categorical column of repeated identifiers)."""
    import handle_id
    import handle_id.arrow as ha
    import pyarrow as pa

    rng = random.Random(2)
    ids = base_identifiers()
    bare = [h.upper() if rng.random() < 0.3 else h for h in (rng.choice(ids) for _ in lines)]
    messy, bare = pa.array(lines, type=pa.string()), pa.array(bare, type=pa.string())
    viewed = pa.array(lines, type=pa.string_view())
    some = lines[:20_000]
    repeated = [rng.choice(some) for _ in lines]
    written, encoded = pa.array(repeated, type=pa.string()), pa.array(repeated).dictionary_encode()
    floor = getattr(handle_id._handle_id, "arrow_columns_floor", None)
    runs = [
        ("arrow.clean, messy lines", lambda: ha.clean(messy)),
        ("arrow.clean, messy lines, string_view", lambda: ha.clean(messy, string_view=True)),
        ("arrow.clean, bare DOIs", lambda: ha.clean(bare)),
        ("arrow.clean, a string_view column", lambda: ha.clean(viewed, string_view=True)),
        ("arrow.clean, 20,000 lines repeated", lambda: ha.clean(written)),
        ("arrow.clean, the same as a dictionary", lambda: ha.clean(encoded)),
        ("arrow.canonical, messy lines", lambda: ha.canonical(messy)),
        ("arrow.extract, messy lines", lambda: ha.extract(messy)),
        ("arrow.is_valid, messy lines (the validator)", lambda: ha.is_valid(messy)),
    ]
    if floor is not None:
        runs.append(("clean's columns, no cleaning (the floor)", lambda: floor(messy)))
    try:
        import polars as pl
        import handle_id.polars  # noqa: F401 (registers the namespace)
    except ImportError:
        print("polars: not installed, not timed")
    else:
        frame = pl.DataFrame({"doi": lines})
        categories = pl.DataFrame({"doi": repeated}).with_columns(pl.col("doi").cast(pl.Categorical))
        plugin = pl.col("doi").handle_id.clean()
        batches = by_batches(lambda: pl.col("doi").handle_id.clean())
        how = "the compiled plugin" if handle_id.polars.COMPILED else "map_batches"
        runs += [
            (f"Polars clean ({how})", lambda: frame.select(plugin)),
            (f"Polars clean ({how}), streaming", lambda: frame.lazy().select(plugin).collect(engine="streaming")),
            ("Polars clean (map_batches)", lambda: frame.select(batches)),
            (f"Polars clean ({how}), 20,000 lines, Categorical", lambda: categories.select(plugin)),
        ]
    for label, fn in runs:
        times = []
        for _ in range(calls):
            t = time.perf_counter()
            fn()
            times.append(time.perf_counter() - t)
        times.sort()
        print(f"{label:45s} best {times[0] * 1e3:7.1f} ms, median {times[len(times) // 2] * 1e3:7.1f} ms", flush=True)


def main() -> None:
    p = argparse.ArgumentParser()
    p.add_argument("--lines", type=int, default=1_000_000)
    p.add_argument("--hdl", default=os.environ.get("HDL", str(ROOT / "target" / "release" / "hdl")))
    p.add_argument("--columns", action="store_true", help="the column functions alone")
    p.add_argument("--calls", type=int, default=9)
    args = p.parse_args()

    lines = messy_lines(args.lines)
    print(f"{len(lines):,} lines, {sum(len(l) for l in lines) / 1e6:.1f} million characters")
    if args.columns:
        columns(lines, args.calls)
        return

    import handle_id
    import handle_id.arrow
    import pyarrow as pa

    results: dict = {}
    runs: list = []

    try:
        from idutils import is_doi, normalize_doi
    except ImportError:
        print("idutils: not installed, not timed")
    else:

        def idutils_run():
            ok = 0
            for l in lines:
                if is_doi(l):
                    normalize_doi(l)
                    ok += 1
            return ok

        runs.append(("idutils is_doi + normalize_doi", idutils_run))

    clean = handle_id.clean
    error = handle_id.HandleError

    def scalar_run():
        ok = 0
        for l in lines:
            try:
                clean(l)
                ok += 1
            except error:
                pass
        return ok

    runs.append(("handle_id.clean, one line at a time", scalar_run))

    def scalar_text_run():
        ok = 0
        for l in lines:
            try:
                str(clean(l))
                ok += 1
            except error:
                pass
        return ok

    # The canonical text out as a Python string, as normalize_doi returns one.
    runs.append(("str(handle_id.clean(line)), the text out", scalar_text_run))
    is_valid = handle_id.is_valid

    def valid_run():
        return sum(1 for l in lines if is_valid(l))

    # What a call costs that validates and returns a bool: the floor of a scalar call.
    runs.append(("handle_id.is_valid, one line at a time", valid_run))
    column = pa.array(lines, type=pa.string())
    runs.append(("handle_id.arrow.clean (column made)", lambda: len(handle_id.arrow.clean(column))))
    # The floors of the column: the validator over it (what any cleaning does at least), and
    # the columns `clean` returns made without cleaning (in a build with that function:
    # MATURIN_PEP517_ARGS="--features bench-floor" pip install ./python).
    runs.append(("handle_id.arrow.is_valid (column made)", lambda: len(handle_id.arrow.is_valid(column))))
    floor = getattr(handle_id._handle_id, "arrow_columns_floor", None)
    if floor is not None:
        runs.append(("clean's columns, no cleaning (column made)", lambda: len(floor(column))))
    runs.append((
        "handle_id.arrow.clean (with pa.array(list))",
        lambda: len(handle_id.arrow.clean(pa.array(lines, type=pa.string()))),
    ))

    try:
        import polars as pl
        import handle_id.polars  # noqa: F401 (registers the namespace)
    except ImportError:
        print("polars: not installed, not timed")
    else:
        frame = pl.DataFrame({"id": lines})
        how = "plugin" if handle_id.polars.COMPILED else "map_batches"
        plugin = pl.col("id").handle_id.clean()
        runs.append((
            f"pl.col(...).handle_id.clean() ({how}, frame made)",
            lambda: frame.select(plugin).height,
        ))
        batches = by_batches(lambda: pl.col("id").handle_id.clean())
        runs.append(("pl.col(...).handle_id.clean() (map_batches)", lambda: frame.select(batches).height))

    hdl = Path(args.hdl)
    path = None
    if hdl.is_file():
        with tempfile.NamedTemporaryFile("w", suffix=".txt", delete=False) as f:
            f.write("\n".join(lines) + "\n")
            path = f.name

        def hdl_run():
            with open(os.devnull, "wb") as null:
                subprocess.run([str(hdl), "clean", path], stdout=null, stderr=subprocess.DEVNULL)
            return 0

        runs.append((f"hdl clean FILE ({hdl.name}, a process)", hdl_run))
    else:
        print(f"{hdl}: no such command, `hdl clean` not timed (cargo build --release -p handle-cli)")
    try:
        timed_in_rounds(runs, results)
    finally:
        if path is not None:
            os.unlink(path)

    cleaned = results["handle_id.clean, one line at a time"]
    print(f"\nhandle_id cleaned {cleaned[1]:,} of {len(lines):,} lines", end="")
    if "idutils is_doi + normalize_doi" in results:
        print(f"; idutils took {results['idutils is_doi + normalize_doi'][1]:,} as DOIs")
        base = results["idutils is_doi + normalize_doi"][0]
        for label, (t, _) in results.items():
            print(f"  {label:45s} {base / t:6.1f}x idutils' speed, {t / len(lines) * 1e9:6.0f} ns a line")
    else:
        print()


if __name__ == "__main__":
    sys.exit(main())
