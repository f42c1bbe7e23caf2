"""The Spark recipe (handle_id.spark, mapInArrow) in Spark's local mode, against the
scalar functions on the corpus. Skipped, saying so, where pyspark or Java is missing."""

from __future__ import annotations

import os
import shutil
import sys

import pytest

import handle_id
from conftest import EXTRA_LINES, corpus_lines

pyspark = pytest.importorskip("pyspark", reason="SKIPPED: pyspark is not installed")
if not (shutil.which("java") or os.environ.get("JAVA_HOME")):
    pytest.skip("SKIPPED: no Java for Spark", allow_module_level=True)

import handle_id.spark  # noqa: E402

VALUES = corpus_lines() + [l for l in EXTRA_LINES] + [None]


@pytest.fixture(scope="module")
def spark():
    from pyspark.sql import SparkSession

    os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
    s = (
        SparkSession.builder.master("local[2]")
        .appName("handle-id-test")
        .config("spark.ui.enabled", "false")
        .config("spark.sql.shuffle.partitions", "2")
        .config("spark.driver.bindAddress", "127.0.0.1")
        .config("spark.driver.host", "127.0.0.1")
        .getOrCreate()
    )
    yield s
    s.stop()


def scalar(fn, v):
    if v is None:
        return None
    try:
        return fn(v)
    except handle_id.HandleError:
        return None


def test_clean_and_extract_in_spark(spark):
    df = spark.createDataFrame([(i, v) for i, v in enumerate(VALUES)], "i long, id string").repartition(3)
    cleaned = handle_id.spark.clean(df, "id").orderBy("i").collect()
    assert [r["handle_id"]["handle"] if r["handle_id"] else None for r in cleaned] == [
        scalar(lambda t: handle_id.clean(t).handle.text, v) for v in VALUES
    ]
    assert [r["handle_id"]["fixes"] if r["handle_id"] else None for r in cleaned] == [
        scalar(lambda t: [f.code for f in handle_id.clean(t).fixes], v) for v in VALUES
    ]
    found = handle_id.spark.extract(df, "id", output="found").orderBy("i").collect()
    assert [None if r["found"] is None else [f["handle"] for f in r["found"]] for r in found] == [
        None if v is None else [f.handle.text for f in handle_id.extract(v)] for v in VALUES
    ]
    valid = handle_id.spark.is_valid(df, "id").orderBy("i").collect()
    assert [r["handle_id"] for r in valid] == [None if v is None else handle_id.is_valid(v) for v in VALUES]
    proxy = handle_id.spark.to_form(df, "id", "proxy").orderBy("i").collect()
    assert [r["handle_id"]["output"] if r["handle_id"] else None for r in proxy] == [
        scalar(lambda t: handle_id.recognize(t).handle.to_form("proxy"), v) for v in VALUES
    ]
