"""handle_id.polars: the expression namespace against the scalar functions on the same
data (the corpus, nulls, empty strings), in a lazy query too."""

from __future__ import annotations

import os

import pytest

pl = pytest.importorskip("polars")

import handle_id
import handle_id.polars  # noqa: F401  (registers pl.col(...).handle_id)
from conftest import EXTRA_LINES, TEXT_LINES, corpus_lines

VALUES = corpus_lines() + EXTRA_LINES + TEXT_LINES + [None, ""]


def scalar(fn, v):
    if v is None:
        return None
    try:
        return fn(v)
    except handle_id.HandleError:
        return None


def test_namespace_is_the_scalar_functions():
    df = pl.DataFrame({"id": VALUES})
    out = df.lazy().select(
        pl.col("id").handle_id.is_valid().alias("valid"),
        pl.col("id").handle_id.canonical().alias("canonical"),
        pl.col("id").handle_id.clean().alias("clean"),
        pl.col("id").handle_id.recognize().alias("recognize"),
        pl.col("id").handle_id.to_form("proxy").alias("proxy"),
        pl.col("id").handle_id.extract().alias("extract"),
    ).collect()
    assert out["valid"].to_list() == [None if v is None else handle_id.is_valid(v) for v in VALUES]
    assert out["canonical"].to_list() == [
        scalar(lambda t: handle_id.recognize(t).handle.canonical().text, v) for v in VALUES
    ]
    assert out["clean"].struct.field("handle").to_list() == [
        scalar(lambda t: handle_id.clean(t).handle.text, v) for v in VALUES
    ]
    assert out["clean"].struct.field("fixes").to_list() == [
        scalar(lambda t: [f.code for f in handle_id.clean(t).fixes], v) for v in VALUES
    ]
    assert out["recognize"].struct.field("form").to_list() == [
        None if v is None else handle_id.detect(v) for v in VALUES
    ]
    assert out["proxy"].to_list() == [
        scalar(lambda t: handle_id.recognize(t).handle.to_form("proxy"), v) for v in VALUES
    ]
    assert out["extract"].to_list() == [
        None
        if v is None
        else [
            {"start": f.start, "end": f.end, "text": f.text, "form": f.form, "handle": f.handle.text}
            for f in handle_id.extract(v)
        ]
        for v in VALUES
    ]


def test_chunked_frames_and_options():
    df = pl.concat([pl.DataFrame({"id": ["hdl:1/2"]}), pl.DataFrame({"id": ["https://repo.example/handle/1/3", None]})], rechunk=False)
    assert df.select(pl.col("id").handle_id.canonical(repository_urls=True))["id"].to_list() == ["1/2", "1/3", None]
    assert df.select(pl.col("id").handle_id.canonical())["id"].to_list() == ["1/2", None, None]


def test_threads_as_the_arrow_functions_take_them():
    values = ["DOI: 10.1000/ABC.", "nothing", None] * 20_000
    df = pl.DataFrame({"id": values})
    for threads in [1, 3]:
        for method in ["is_valid", "canonical", "clean"]:
            expr = getattr(pl.col("id").handle_id, method)
            assert df.select(expr(threads=threads)).equals(df.select(expr()))
    with pytest.raises(Exception, match="threads must be 1 or more"):
        df.select(pl.col("id").handle_id.is_valid(threads=0))


def test_the_namespace_is_the_compiled_plugin_where_polars_takes_it():
    # python/run-tests.sh installs the Polars whose plugin interface the module speaks.
    assert handle_id.polars.COMPILED, f"Polars {pl.__version__} did not take the plugin"


def methods(col):
    ns = pl.col(col).handle_id
    return [
        ns.is_valid().alias("valid"),
        ns.canonical().alias("canonical"),
        ns.clean().alias("clean"),
        ns.clean(keep_case=True, proxy_bases=("https://resolver.example/",)).alias("kept"),
        ns.recognize(repository_urls=True).alias("recognize"),
        ns.to_form("proxy", base="https://resolver.example/").alias("proxy"),
        ns.extract(handle_prefixes=["20.1000"]).alias("extract"),
    ]


@pytest.mark.parametrize("engine", ["in-memory", "streaming"])
def test_the_plugin_gives_what_the_batches_give(monkeypatch, engine):
    # The same columns as map_batches over handle_id.arrow (the namespace where Polars does
    # not take the plugin), in chunks, from both engines.
    values = VALUES * 3
    third = len(values) // 3
    df = pl.concat(
        [pl.DataFrame({"id": values[:third]}), pl.DataFrame({"id": values[third:]})], rechunk=False
    )
    compiled = df.lazy().select(methods("id")).collect(engine=engine)
    monkeypatch.setattr(handle_id.polars, "COMPILED", False)
    batches = df.lazy().select(methods("id")).collect(engine=engine)
    assert compiled.schema == batches.schema
    assert compiled.equals(batches)
    assert compiled["proxy"].to_list()[:1] == [
        scalar(lambda t: handle_id.recognize(t).handle.to_form("proxy", base="https://resolver.example/"), values[0])
    ]


def test_binary_and_null_columns_and_names_kept():
    df = pl.DataFrame({"b": [b"10.1000/X", b"\xff10.1/x", None]})
    out = df.select(pl.col("b").handle_id.canonical(), pl.col("b").handle_id.to_form("hdl").alias("hdl"))
    assert out.columns == ["b", "hdl"]
    assert out["b"].to_list() == ["10.1000/x", None, None]
    assert out["hdl"].to_list() == ["hdl:10.1000/X", None, None]
    # A column of nulls alone (Polars' Null type), and one with no rows.
    nulls = pl.DataFrame({"n": [None, None]})
    assert nulls.select(pl.col("n").handle_id.is_valid())["n"].to_list() == [None, None]
    assert nulls.select(pl.col("n").handle_id.clean())["n"].to_list() == [None, None]
    empty = pl.DataFrame({"e": []}, schema={"e": pl.String})
    assert dict(empty.select(pl.col("e").handle_id.clean()).schema) == {"e": _CLEANED}


_CLEANED = pl.Struct(
    {"handle": pl.String, "form": pl.Categorical, "fixes": pl.List(pl.Categorical), "error": pl.String}
)


def test_the_plugins_errors_name_what_is_wrong():
    # Arguments are refused when the expression is made, as handle_id.arrow refuses them
    # (a HandleError for a base or prefix that is not one, a TypeError for another type);
    # the fallback over handle_id.arrow refuses the same, with the same types, when run.
    df = pl.DataFrame({"id": ["10.1000/x"], "n": [1]})
    ns = lambda: pl.col("id").handle_id
    cases = [
        (lambda: ns().clean(bogus=True), TypeError, "unexpected keyword argument \"bogus\""),
        (lambda: ns().clean(keep_case="yes"), TypeError, "keep_case must be a bool, not a str"),
        (lambda: ns().canonical(proxy_bases="https://x.org/"), TypeError, "proxy_bases: a list of str, not one str"),
        (lambda: ns().clean(proxy_bases=["nope"]), handle_id.HandleError, "'n' .* not allowed in the scheme"),
        (lambda: ns().extract(handle_prefixes=["a/b"]), handle_id.HandleError, "'/' .* naming authority"),
        (lambda: ns().to_form("proxy", base="ftp://x"), handle_id.HandleError, "'f' .* not allowed in the scheme"),
        (lambda: ns().to_form("nowhere"), ValueError, "unknown form \"nowhere\""),
        (lambda: ns().to_form(None), TypeError, "needs a form"),
        (lambda: ns().is_valid(threads=0), ValueError, "threads must be 1 or more"),
        (lambda: ns().is_valid(threads=2.0), TypeError, "unreadable"),
        (lambda: ns().is_valid(threads=2**64), OverflowError, "too large"),
        (lambda: ns().clean(threads=-(2**100)), OverflowError, "too large"),
        (lambda: ns().canonical(proxy_bases=b"https://x.org/"), TypeError, "unreadable"),
        # An unknown keyword is told before what is wrong with a value.
        (lambda: ns().clean(bogus=True, proxy_bases=["nope"]), TypeError, "bogus"),
    ]
    for make, error, message in cases:
        with pytest.raises(error, match=message):
            make()
    compiled = handle_id.polars.COMPILED
    try:
        handle_id.polars.COMPILED = False
        for make, error, _ in cases:
            with pytest.raises(error):
                df.select(make())
    finally:
        handle_id.polars.COMPILED = compiled
    # Values of the types the arguments take, as handle_id.arrow takes them.
    import enum

    class Two(enum.IntEnum):
        TWO = 2

    class Text(str):
        pass

    try:
        for handle_id.polars.COMPILED in {compiled, False}:
            expr = ns().clean(threads=Two.TWO, proxy_bases=(Text("https://x.org/"),), keep_case=False)
            assert df.select(expr)["id"].struct.field("handle").to_list() == ["10.1000/x"]
            # Any iterable of str, as handle_id.arrow takes it: a set, a generator.
            expr = ns().canonical(proxy_bases={"https://x.org/"})
            assert df.select(expr)["id"].to_list() == ["10.1000/x"]
            expr = ns().extract(handle_prefixes=(p for p in ["10.1000"]))
            assert df.select(expr)["id"].to_list()[0][0]["handle"] == "10.1000/x"
    finally:
        handle_id.polars.COMPILED = compiled
    with pytest.raises(pl.exceptions.ComputeError, match="expected an array of strings or binary, not Int64"):
        df.select(pl.col("n").handle_id.clean())


def test_columns_through_the_plugin_are_released():
    # The plugin takes each input chunk and releases it, and Polars releases each output:
    # a fresh column (not shared with the frame, 8 MB) made and cleaned again and again
    # holds the process's memory where it was (its resident size now, not its peak, which
    # the allocator's arenas move).
    if not os.path.exists("/proc/self/statm"):
        pytest.skip("no /proc/self/statm to read the resident size from")

    def resident():  # KiB
        with open("/proc/self/statm") as f:
            return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") // 1024

    df = pl.DataFrame({"id": ["DOI: 10.1000/ABC.", "https://doi.org/10.1000/X" * 4, None] * 70_000})
    fresh = (pl.col("id") + pl.lit("x")).handle_id.clean().struct.field("handle").str.len_bytes().sum()
    for _ in range(10):
        df.select(fresh)
    settled = resident()
    for _ in range(30):
        df.select(fresh)
    assert resident() - settled < 32 * 1024


@pytest.mark.parametrize("compiled", [True, False])
def test_names_and_categories_as_polars_gives_them(monkeypatch, compiled):
    monkeypatch.setattr(handle_id.polars, "COMPILED", compiled and handle_id.polars.COMPILED)
    df = pl.DataFrame({"a": ["doi:10.1000/X", "hdl:1/x", None]})
    out = df.with_columns(pl.col("a").alias("as_hdl").handle_id.to_form("hdl"))
    assert out.columns == ["a", "as_hdl"]
    assert out["a"].to_list() == df["a"].to_list()
    assert out["as_hdl"].to_list() == ["hdl:10.1000/X", "hdl:1/x", None]
    literal = pl.select(pl.lit("doi:10.1000/X").handle_id.to_form("hdl"))
    assert literal.to_dict(as_series=False) == {"literal": ["hdl:10.1000/X"]}
    # A list given for two options (pickle would write the second as a reference).
    none: list[str] = []
    assert df.select(pl.col("a").handle_id.extract(proxy_bases=none, handle_prefixes=none)).height == 3
    # A categorical column: each row read as its value.
    categories = df.with_columns(pl.col("a").cast(pl.Categorical))
    for method in ["is_valid", "canonical", "clean", "recognize", "extract"]:
        expr = getattr(pl.col("a").handle_id, method)
        assert categories.select(expr()).equals(df.select(expr())), method


def test_collects_at_once_from_many_threads_give_what_one_gives():
    # Polars calls the plugin from its threads, and from every thread that collects: calls
    # made at once share the machine's spare threads, each giving what it gives alone.
    from concurrent.futures import ThreadPoolExecutor

    df = pl.DataFrame({"id": VALUES * 20})
    plan = df.lazy().select(methods("id"))
    alone = plan.collect()
    engines = ["in-memory", "streaming"] * 6
    with ThreadPoolExecutor(max_workers=8) as pool:
        results = list(pool.map(lambda engine: plan.collect(engine=engine), engines))
    assert all(r.equals(alone) for r in results)


def test_the_compiled_namespace_needs_no_pyarrow():
    # With pyarrow not importable, the namespace imports and works (the plugin takes
    # Polars' own Arrow data); only the fallback over handle_id.arrow needs it.
    import subprocess
    import sys

    script = (
        "import sys; sys.modules['pyarrow'] = None\n"
        "import polars as pl, handle_id.polars as hp\n"
        "assert hp.COMPILED\n"
        "df = pl.DataFrame({'a': ['DOI: 10.1000/ABC.', None]})\n"
        "print(df.select(pl.col('a').handle_id.clean().struct.field('handle'))['handle'].to_list())\n"
    )
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "['10.1000/abc', None]"
