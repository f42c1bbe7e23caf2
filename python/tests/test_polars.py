"""handle_id.polars: the expression namespace against the scalar functions on the same
data (the corpus, nulls, empty strings), in a lazy query too."""

from __future__ import annotations

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
